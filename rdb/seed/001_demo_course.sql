-- Demo course: applied once, by `make up`, on an empty database.
-- Every demo account's password is "prutor-demo" (a public demo, not a secret);
-- the bcrypt hash below is of that word, cost 10.
SET @demo_hash = '$2b$10$tff11kmsEcpMnZpaNp8TguG7AMtwrCrYIOP5sOxgu4HxYfBLYFPra';

INSERT INTO sections (id, code, name) VALUES
  (1, 'A', 'Section A (Monday lab)'),
  (2, 'B', 'Section B (Tuesday lab)');

INSERT INTO users (id, username, password_hash, name, email, role, section_id) VALUES
  (1, 'admin',      @demo_hash, 'Ada Admin',        'admin@example.edu',      'admin',      NULL),
  (2, 'instructor', @demo_hash, 'Ivan Instructor',  'instructor@example.edu', 'instructor', NULL),
  (3, 'ta',         @demo_hash, 'Tara Assistant',   'ta@example.edu',         'ta',         NULL);

-- student01..student10 in section A, student11..student20 in section B
INSERT INTO users (id, username, password_hash, name, email, role, section_id)
SELECT 100 + seq, CONCAT('student', LPAD(seq, 2, '0')), @demo_hash,
       CONCAT('Student ', LPAD(seq, 2, '0')), CONCAT('student', LPAD(seq, 2, '0'), '@example.edu'),
       'student', IF(seq <= 10, 1, 2)
  FROM seq_1_to_20;

INSERT INTO problems (id, title, category, statement_md, env, template_code, solution_code,
                      time_limit_ms, memory_limit_kb, compare_mode, is_practice, created_by) VALUES
 (1, 'Sum of two integers', 'basics',
  'Read two integers `a` and `b` from standard input and print their sum on one line.\n\n**Example**\n\n    Input:  2 3\n    Output: 5',
  'c', '#include <stdio.h>\n\nint main(void)\n{\n    /* read a and b, print a + b */\n    return 0;\n}\n',
  '#include <stdio.h>\n\nint main(void)\n{\n    long a, b;\n    if (scanf("%ld %ld", &a, &b) != 2) return 1;\n    printf("%ld\\n", a + b);\n    return 0;\n}\n',
  1000, 65536, 'trim', 0, 2),
 (2, 'Reverse a word', 'strings',
  'Read one word (at most 100 characters) and print it reversed.\n\n**Example**\n\n    Input:  prutor\n    Output: rotuorp',
  'c', '#include <stdio.h>\n#include <string.h>\n\nint main(void)\n{\n    char word[101];\n    /* read the word, print it reversed */\n    return 0;\n}\n',
  '#include <stdio.h>\n#include <string.h>\n\nint main(void)\n{\n    char w[101];\n    if (scanf("%100s", w) != 1) return 1;\n    for (int i = (int)strlen(w) - 1; i >= 0; i--) putchar(w[i]);\n    putchar(\'\\n\');\n    return 0;\n}\n',
  1000, 65536, 'trim', 0, 2),
 (3, 'Factorial', 'loops',
  'Read `n` (0 <= n <= 20) and print `n!`.',
  'c', '#include <stdio.h>\n\nint main(void)\n{\n    return 0;\n}\n',
  '#include <stdio.h>\n\nint main(void)\n{\n    int n;\n    unsigned long long f = 1;\n    if (scanf("%d", &n) != 1) return 1;\n    for (int i = 2; i <= n; i++) f *= i;\n    printf("%llu\\n", f);\n    return 0;\n}\n',
  1000, 65536, 'trim', 1, 2),
 (4, 'Hello, World', 'basics',
  'Print `Hello, World!` followed by a newline.',
  'c', '#include <stdio.h>\n\nint main(void)\n{\n    return 0;\n}\n',
  '#include <stdio.h>\n\nint main(void)\n{\n    printf("Hello, World!\\n");\n    return 0;\n}\n',
  1000, 65536, 'exact', 1, 2),
 (5, 'Largest of N numbers', 'arrays',
  'Read `n` and then `n` integers; print the largest.',
  'c', '#include <stdio.h>\n\nint main(void)\n{\n    return 0;\n}\n',
  '#include <stdio.h>\n\nint main(void)\n{\n    int n, x, best;\n    if (scanf("%d %d", &n, &best) != 2) return 1;\n    for (int i = 1; i < n; i++) { scanf("%d", &x); if (x > best) best = x; }\n    printf("%d\\n", best);\n    return 0;\n}\n',
  1000, 65536, 'trim', 1, 2);


INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight) VALUES
 (1, 1, '2 3\n', '5\n', 'visible', 1),
 (1, 2, '-7 7\n', '0\n', 'visible', 1),
 (1, 3, '1000000000 2000000000\n', '3000000000\n', 'hidden', 2),
 (1, 4, '-5 -6\n', '-11\n', 'hidden', 1),
 (2, 1, 'prutor\n', 'rotuorp\n', 'visible', 1),
 (2, 2, 'a\n', 'a\n', 'visible', 1),
 (2, 3, 'racecar\n', 'racecar\n', 'hidden', 1),
 (2, 4, 'abcdefghij\n', 'jihgfedcba\n', 'hidden', 2),
 (3, 1, '5\n', '120\n', 'visible', 1),
 (3, 2, '0\n', '1\n', 'visible', 1),
 (3, 3, '20\n', '2432902008176640000\n', 'hidden', 2),
 (4, 1, '', 'Hello, World!\n', 'visible', 1),
 (5, 1, '3\n4 9 2\n', '9\n', 'visible', 1),
 (5, 2, '1\n-3\n', '-3\n', 'hidden', 1);


INSERT INTO events (id, title, type, description, published_at, created_by) VALUES
 (1, 'Lab 1: Input and output', 'lab', 'Two short problems on reading input and printing results.', UTC_TIMESTAMP(3), 2),
 (2, 'Quiz 0: Warm-up', 'quiz', 'A finished quiz, kept for the codebook and grading.', UTC_TIMESTAMP(3) - INTERVAL 8 DAY, 2);

INSERT INTO event_questions (id, event_id, position, problem_id, section_id, max_marks) VALUES
 (1, 1, 1, 1, NULL, 10),
 (2, 1, 2, 2, NULL, 10),
 (3, 2, 1, 3, NULL, 5);

-- Lab 1 is open for both sections for 30 days from seeding; Quiz 0 ran a week ago.
INSERT INTO schedules (id, event_id, start_time, stop_time) VALUES
 (1, 1, UTC_TIMESTAMP(3) - INTERVAL 1 HOUR, UTC_TIMESTAMP(3) + INTERVAL 30 DAY),
 (2, 2, UTC_TIMESTAMP(3) - INTERVAL 7 DAY, UTC_TIMESTAMP(3) - INTERVAL 7 DAY + INTERVAL 1 HOUR);

INSERT INTO slots (schedule_id, event_id, section_id) VALUES
 (1, 1, 1), (1, 1, 2), (2, 2, 1), (2, 2, 2);

-- What publishing does: one assignment per student and question.
INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id)
SELECT 'event', u.id, q.event_id, q.id, q.problem_id
  FROM event_questions q
  JOIN slots sl ON sl.event_id = q.event_id
  JOIN users u ON u.section_id = sl.section_id AND u.role = 'student'
 WHERE q.section_id IS NULL OR q.section_id = u.section_id;

-- Quiz 0: student01 submitted a correct factorial, student02 a wrong one.
INSERT INTO code (assignment_id, branch_id, save_trigger, code, save_time)
SELECT a.id, 0, 'submit',
       IF(a.user_id = 101,
          '#include <stdio.h>\n\nint main(void)\n{\n    int n;\n    unsigned long long f = 1;\n    scanf("%d", &n);\n    for (int i = 2; i <= n; i++) f *= i;\n    printf("%llu\\n", f);\n    return 0;\n}\n',
          '#include <stdio.h>\n\nint main(void)\n{\n    int n, f = 1;\n    scanf("%d", &n);\n    for (int i = 2; i <= n; i++) f *= i;\n    printf("%d\\n", f);\n    return 0;\n}\n'),
       UTC_TIMESTAMP(3) - INTERVAL 7 DAY + INTERVAL 40 MINUTE
  FROM assignments a WHERE a.event_id = 2 AND a.user_id IN (101, 102);

UPDATE assignments SET score = IF(user_id = 101, 5, 3) WHERE event_id = 2 AND user_id IN (101, 102);

INSERT INTO grades (assignment_id, marks, feedback, grader_id)
SELECT a.id, 5, 'Correct and clearly written.', 3 FROM assignments a WHERE a.event_id = 2 AND a.user_id = 101;

INSERT INTO notifications (section_id, message) VALUES
 (NULL, 'Welcome to the demo course. Lab 1 is open: two problems, 10 marks each.');
