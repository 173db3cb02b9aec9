-- Problems no event uses can be archived (hidden from the lists, kept) or deleted.
ALTER TABLE problems ADD COLUMN archived_at DATETIME(3) NULL, ADD KEY ix_problems_archived (archived_at);
