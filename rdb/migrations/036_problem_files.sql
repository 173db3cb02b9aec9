-- Support files of a problem (issue 28: programs of several files), as CodeRunner's support
-- files and Jobe's file_list: read-only data a program opens, a header it includes, or a
-- source the instructor gives around the student's function (a C main calling it). Every
-- compile and run of the problem's code has them beside the student's file; a file with the
-- environment's source extension is compiled with it (C, C++). shown_to_students: the
-- editor lists it read-only (a header, a main); hidden otherwise (data of hidden cases).
-- name: Jobe's rule for a file name ([A-Za-z0-9_][A-Za-z0-9_.-]*, at most 128), checked by
-- the webapp; never the student's own file name or the program's ("prog").
-- A change here touches problems.updated_at (the webapp does), which keys the engine's caches.
CREATE TABLE problem_files (
  id                 INT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
  problem_id         INT UNSIGNED NOT NULL,
  name               VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  contents           MEDIUMTEXT   NOT NULL,
  shown_to_students  TINYINT(1)   NOT NULL DEFAULT 1,
  created_at         DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY ux_problem_files_name (problem_id, name),
  CONSTRAINT fk_problem_files_problem FOREIGN KEY (problem_id) REFERENCES problems (id) ON DELETE CASCADE
) ENGINE=InnoDB;
