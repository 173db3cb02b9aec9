<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;

/**
 * The languages beyond C, C++ and Python (Java, Node.js, PHP, Pascal), each through both
 * doors, against the running engine through HAProxy: a student's /execute (its verdicts under
 * the problem's 64 MB and 1 s) and the Jobe API (Jobe's outcomes). Per language: hello world
 * with stdin, a compile error, a runtime error, a time limit, a memory limit, a forbidden
 * call, and the hostile programs that a managed runtime makes easy (threads, the network,
 * reading the host's files). A language GET languages does not list (not installed here)
 * is skipped, as the engine does not offer it.
 */
final class LanguagesTest extends TestCase
{
    private const API = '/jobe/index.php/restapi/';
    private static ?Fixture $f = null;
    /** @var list<string> */
    private static array $listed = [];
    private static string $key = '';

    public static function setUpBeforeClass(): void
    {
        self::$f = Fixture::open();
        self::$key = explode(':', trim(explode(',', (string) getenv('ENGINE_JOBE_KEYS'))[0]))[0];
        if (self::$key !== '') {
            $r = self::$f->call('GET', self::API . 'languages', null, null, false, null, ['X-API-KEY: ' . self::$key]);
            self::$listed = array_column(is_array($r['json']) ? $r['json'] : [], 0);
        }
    }

    public static function tearDownAfterClass(): void
    {
        self::$f?->cleanup();
    }

    private static function f(): Fixture
    {
        return self::$f ?? throw new \LogicException('no fixture');
    }

    private function need(string $lang): void
    {
        if (self::$key === '') {
            $this->markTestSkipped('ENGINE_JOBE_KEYS is not set: these tests need the running stack');
        }
        if (!in_array($lang, self::$listed, true)) {
            $this->markTestSkipped("$lang is not installed here (GET languages does not list it)");
        }
    }

    /** @return array<string, mixed> the /execute answer (asserts 200) */
    private function execute(string $lang, string $code, string $input = ''): array
    {
        $f = self::f();
        // a comment with the run's own tag: every program is compiled afresh, never from another run's cache
        $tag = ['java' => '// ', 'nodejs' => '// ', 'php' => '// ', 'pascal' => '// '][$lang] . $f->tag . ' ' . $this->getName();
        $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'env' => $lang, 'code' => $code . "\n" . $tag . "\n", 'input' => $input]);
        $this->assertSame(200, $r['status'], $r['raw']);
        return $r['json'];
    }

    /**
     * @param array<string, mixed> $spec
     * @return array<string, mixed>
     */
    private function jobe(string $lang, string $source, array $spec = []): array
    {
        $r = self::f()->call('POST', self::API . 'runs', ['run_spec' => ['language_id' => $lang, 'sourcecode' => $source] + $spec],
            null, false, null, ['X-API-KEY: ' . self::$key]);
        $this->assertSame(200, $r['status'], $r['raw']);
        return $r['json'];
    }

    /**
     * Per language: hello (reads a line of stdin), compile error, runtime error, endless loop,
     * a memory hog, a forbidden call (a shell, or for Pascal a TCP socket).
     *
     * @return array<string, array{0: string, 1: string, 2: string, 3: string, 4: string, 5: string, 6: string}>
     */
    public static function programs(): array
    {
        return [
            'java' => ['java',
                "import java.util.Scanner;\n\npublic class Greeter {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        System.out.println(\"hi \" + in.nextLine());\n    }\n}",
                "public class Broken {\n    public static void main(String[] args) {\n        int x = \"text\";\n    }\n}",
                "public class Crash {\n    public static void main(String[] args) {\n        int[] a = new int[1];\n        System.out.println(a[2]);\n    }\n}",
                "public class Spin {\n    public static void main(String[] args) {\n        long i = 0;\n        while (i >= 0) { i = (i + 1) % 1000; }\n    }\n}",
                "import java.util.ArrayList;\n\npublic class Hog {\n    public static void main(String[] args) {\n        ArrayList<long[]> keep = new ArrayList<>();\n        for (int i = 0; i < 4096; i++) { keep.add(new long[1 << 17]); }\n        System.out.println(keep.size());\n    }\n}",
                "public class Shell {\n    public static void main(String[] args) throws Exception {\n        Process p = new ProcessBuilder(\"/bin/sh\", \"-c\", \"id\").start();\n        System.out.println(new String(p.getInputStream().readAllBytes()));\n    }\n}",
            ],
            'nodejs' => ['nodejs',
                "const line = require('fs').readFileSync(0, 'utf8').split('\\n')[0];\nconsole.log('hi ' + line);",
                "const s = 'unclosed;\nconsole.log(s);",
                "const o = undefined;\nconsole.log(o.field);",
                "let i = 0;\nwhile (i >= 0) { i = (i + 1) % 1000; }",
                "const keep = [];\nfor (let i = 0; i < 4096; i++) { keep.push(Buffer.alloc(1 << 20, 1)); }\nconsole.log(keep.length);",
                "console.log(require('child_process').execSync('id').toString());",
            ],
            'php' => ['php',
                "<?php\n\$line = trim(fgets(STDIN));\necho \"hi \$line\\n\";",
                "<?php\necho \"unclosed;\n",
                "<?php\nfunction f(int \$x): int { return intdiv(\$x, 0); }\necho f(1);",
                "<?php\n\$i = 0;\nwhile (\$i >= 0) { \$i = (\$i + 1) % 1000; }",
                "<?php\n\$keep = [];\nfor (\$i = 0; \$i < 4096; \$i++) { \$keep[] = str_repeat('x', 1 << 20); }\necho count(\$keep);",
                "<?php\n\$s = stream_socket_client('tcp://127.0.0.1:8081');\necho \$s ? 'uid=connected' : 'refused';",
            ],
            'pascal' => ['pascal',
                "program Greeter;\nvar s: string;\nbegin\n  readln(s);\n  writeln('hi ', s);\nend.",
                "program Broken;\nbegin\n  writeln('unclosed);\nend.",
                "program Crash;\nvar p: ^integer;\nbegin\n  p := nil;\n  p^ := 1;\nend.",
                "program Spin;\nvar i: int64;\nbegin\n  i := 0;\n  while i >= 0 do i := (i + 1) mod 1000;\nend.",
                "program Hog;\nvar i: integer; p: pointer;\nbegin\n  for i := 1 to 4096 do begin getmem(p, 1 shl 20); fillchar(p^, 1 shl 20, 1); end;\n  writeln('done');\nend.",
                "program Net;\nuses sockets;\nbegin\n  writeln(fpSocket(AF_INET, SOCK_STREAM, 0));\nend.",
            ],
        ];
    }

    /** @dataProvider programs */
    public function testAStudentsVerdictsInEachLanguage(string $lang, string $hello, string $compileError, string $crash, string $spin, string $hog, string $forbidden): void
    {
        $this->need($lang);
        $r = $this->execute($lang, $hello, "there\n");
        $this->assertSame(['accepted', "hi there\n", ''], [$r['verdict'], $r['stdout'], $r['stderr']], json_encode($r));
        $r = $this->execute($lang, $compileError);
        $this->assertSame('compilation_error', $r['verdict'], json_encode($r));
        $this->assertNotSame('', (string) ($r['compile']['raw'] ?? ''), 'a compile error explains itself');
        $this->assertSame('runtime_error', $this->execute($lang, $crash)['verdict']);
        $this->assertSame('time_limit', $this->execute($lang, $spin)['verdict']);
        // the problem's 64 MB: 4 GB asked for is stopped by the sandbox, never its own error
        $r = $this->execute($lang, $hog);
        $f = $this->execute($lang, $forbidden);
        fwrite(STDERR, sprintf("\n[languages] %-6s memory hog: %s (%d KB), forbidden call: %s %s", $lang, $r['verdict'], $r['memory_kb'],
            $f['verdict'], $f['signal_name'] ?? ''));
        $this->assertContains($r['verdict'], ['memory_limit', 'runtime_error'], json_encode($r));
        $this->assertStringNotContainsString('4096', $r['stdout']);
        $this->assertStringNotContainsString('done', $r['stdout']);
        $this->assertContains($f['verdict'], ['forbidden_syscall', 'runtime_error'], json_encode($f));
        $this->assertStringNotContainsString('uid=', $f['stdout'], 'no shell ran, no connection made');
    }

    /** @dataProvider programs */
    public function testJobeOutcomesInEachLanguage(string $lang, string $hello, string $compileError, string $crash, string $spin): void
    {
        $this->need($lang);
        $r = $this->jobe($lang, $hello, ['input' => "there\n"]);
        $this->assertSame([15, "hi there\n", ''], [$r['outcome'], $r['stdout'], $r['stderr']], json_encode($r));
        // Node.js: Jobe only copies the source, so a syntax error is a runtime error (12), as in Jobe
        $this->assertSame($lang === 'nodejs' ? 12 : 11, $this->jobe($lang, $compileError)['outcome']);
        $this->assertSame(12, $this->jobe($lang, $crash)['outcome']);
        $this->assertSame(13, $this->jobe($lang, $spin, ['parameters' => ['cputime' => 1]])['outcome']);
    }

    public function testJavaTakesItsFileNameFromThePublicClassAndCompilesSupportClasses(): void
    {
        $this->need('java');
        $f = self::f();
        $thing = "public class Thing {\n    private final String s;\n    public Thing(String s) { this.s = s; }\n    public void print() { System.out.println(s); }\n}\n";
        $id = 'langtest' . bin2hex(random_bytes(8));
        $put = $f->call('PUT', self::API . 'files/' . $id, ['file_contents' => base64_encode($thing)], null, false, null, ['X-API-KEY: ' . self::$key]);
        $this->assertSame(204, $put['status'], $put['raw']);
        $main = "// the class name, not the file's, decides\npublic class Blah {\n    public static void main(String[] args) {\n        new Thing(\"Farewell \" + args.length).print();\n    }\n}\n";
        $r = $this->jobe('java', $main, ['file_list' => [[$id, 'Thing.java']], 'parameters' => ['runargs' => ['a', 'b']]]);
        $this->assertSame([15, "Farewell 2\n"], [$r['outcome'], $r['stdout']], json_encode($r));
        // a student's class may have any name; a second class in the same file is compiled with it
        $r = $this->execute('java', "public class Anything {\n    public static void main(String[] a) { System.out.println(Helper.twice(21)); }\n}\nclass Helper {\n    static int twice(int x) { return 2 * x; }\n}");
        $this->assertSame(['accepted', "42\n"], [$r['verdict'], $r['stdout']], json_encode($r));
    }

    /**
     * A JVM given 64 MB (the problem's limit) starts and answers a verdict: never a sandbox
     * error, never a JVM that could not reserve its heap; Jobe's API, asked for 64 MB, runs
     * Java as Jobe does (its memorylimit disregarded for Java).
     */
    public function testAJvmGivenSixtyFourMegabytesRunsAndIsBoundByTheLimit(): void
    {
        $this->need('java');
        $r = $this->execute('java', "public class Small {\n    public static void main(String[] a) {\n        StringBuilder b = new StringBuilder();\n        for (int i = 0; i < 100000; i++) b.append(i % 10);\n        System.out.println(b.length() + \" \" + Runtime.getRuntime().maxMemory() / (1 << 20));\n    }\n}");
        $this->assertSame('accepted', $r['verdict'], json_encode($r));
        $this->assertMatchesRegularExpression('/^100000 (\d+)\n$/', $r['stdout']);
        $this->assertLessThanOrEqual(64, (int) explode(' ', trim($r['stdout']))[1], 'the heap is sized from the 64 MB limit');
        $r = $this->jobe('java', "public class Small {\n    public static void main(String[] a) { System.out.println(\"ok\"); }\n}\n",
            ['parameters' => ['memorylimit' => 64]]);
        $this->assertSame([15, "ok\n"], [$r['outcome'], $r['stdout']], json_encode($r));
    }

    /**
     * Programs of several files: a C problem gives a header, the instructor's main (harness.c)
     * around the student's function, and a data file its main reads; the student writes only
     * the function. Compile, execute and evaluate all see them; the student's own file wins
     * over a support file of its name; a student without the function fails at the link.
     */
    public function testATwoFileCQuestionGivesTheMainAndTheStudentWritesTheFunction(): void
    {
        $f = self::f();
        $db = $f->db;
        $db->prepare("INSERT INTO problems (title, statement_md, env, template_code, solution_code, time_limit_ms, memory_limit_kb, compare_mode)
            VALUES (?, 'Write scale().', 'c', '', '', 1000, 65536, 'trim')")->execute([$f->tag . ' two files']);
        $pid = (int) $db->lastInsertId();
        try {
            $files = [
                'scale.h' => "#ifndef SCALE_H\n#define SCALE_H\nlong scale(long x);\n#endif\n",
                'harness.c' => "#include <stdio.h>\n#include \"scale.h\"\nint main(void) {\n  long x, k = 0;\n  FILE *d = fopen(\"factor.txt\", \"r\");\n"
                    . "  if (!d || fscanf(d, \"%ld\", &k) != 1) { puts(\"no data\"); return 1; }\n  while (scanf(\"%ld\", &x) == 1) printf(\"%ld\\n\", k * scale(x));\n  return 0;\n}\n",
                'factor.txt' => "10\n",
                'main.c' => "this is not C: the student's file of this name is the one compiled\n",
            ];
            foreach ($files as $name => $contents) {
                $db->prepare('INSERT INTO problem_files (problem_id, name, contents) VALUES (?, ?, ?)')->execute([$pid, $name, $contents]);
            }
            foreach ([[1, "3\n", "60\n", 'visible'], [2, "-1 4\n", "-20\n80\n", 'hidden']] as [$pos, $in, $out, $vis]) {
                $db->prepare('INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight) VALUES (?, ?, ?, ?, ?, 1)')
                    ->execute([$pid, $pos, $in, $out, $vis]);
            }
            $db->prepare("INSERT INTO assignments (kind, user_id, problem_id, title) VALUES ('practice', ?, ?, 't')")->execute([$f->ids['student'], $pid]);
            $aid = (int) $db->lastInsertId();
            $student = "#include \"scale.h\"\nlong scale(long x) { return 2 * x; } /* {$f->tag} */\n";

            $r = $f->call('POST', '/compile', ['assignment_id' => $aid, 'code' => $student]);
            $this->assertSame([200, true], [$r['status'], $r['json']['compiled'] ?? null], $r['raw']);
            $r = $f->call('POST', '/execute', ['assignment_id' => $aid, 'code' => $student, 'input' => "5 7\n"]);
            $this->assertSame(['accepted', "100\n140\n"], [$r['json']['verdict'] ?? null, $r['json']['stdout'] ?? null], $r['raw']);
            $r = $f->call('POST', '/evaluate', ['assignment_id' => $aid, 'code' => $student]);
            $this->assertSame(['accepted', 2], [$r['json']['verdict'] ?? null, count(array_filter($r['json']['cases'] ?? [], static fn ($c) => $c['passed']))], $r['raw']);
            $r = $f->call('POST', '/evaluate', ['problem_id' => $pid, 'code' => $student], 'staff');
            $this->assertSame('accepted', $r['json']['verdict'] ?? null, $r['raw']);

            $r = $f->call('POST', '/compile', ['assignment_id' => $aid, 'code' => "/* no scale() {$f->tag} */\nint unrelated;\n"]);
            $this->assertFalse($r['json']['compiled'], $r['raw']);
            $this->assertStringContainsString('scale', (string) $r['json']['raw'], 'the link names the missing function');
            // a support file changed by staff (updated_at touched) is what the next compile uses
            $db->prepare("UPDATE problem_files SET contents = '3' WHERE problem_id = ? AND name = 'factor.txt'")->execute([$pid]);
            $db->prepare('UPDATE problems SET updated_at = UTC_TIMESTAMP(3) + INTERVAL 1 SECOND WHERE id = ?')->execute([$pid]);
            $r = $f->call('POST', '/execute', ['assignment_id' => $aid, 'code' => $student, 'input' => "5\n"]);
            $this->assertSame("30\n", $r['json']['stdout'] ?? null, $r['raw']);
        } finally {
            foreach (['evaluations', 'executions', 'compilations'] as $t) {
                $db->prepare("DELETE x FROM $t x JOIN assignments a ON a.id = x.assignment_id WHERE a.problem_id = ?")->execute([$pid]);
            }
            $db->prepare('DELETE c FROM code c JOIN assignments a ON a.id = c.assignment_id WHERE a.problem_id = ?')->execute([$pid]);
            $db->prepare('DELETE FROM assignments WHERE problem_id = ?')->execute([$pid]);
            $db->prepare('DELETE FROM problems WHERE id = ?')->execute([$pid]);
        }
    }

    /** A Java problem gives Main.java (its main reads a data file and calls the student's class); the student writes Solution. */
    public function testAJavaQuestionGivesTheMainAndTheStudentWritesTheClass(): void
    {
        $this->need('java');
        $f = self::f();
        $db = $f->db;
        $db->prepare("INSERT INTO problems (title, statement_md, env, template_code, solution_code, time_limit_ms, memory_limit_kb, compare_mode)
            VALUES (?, 'Write Solution.twice().', 'java', '', '', 4000, 262144, 'trim')")->execute([$f->tag . ' java two files']);
        $pid = (int) $db->lastInsertId();
        try {
            $main = "import java.nio.file.*;\nimport java.util.Scanner;\n\npublic class Main {\n    public static void main(String[] args) throws Exception {\n"
                . "        int k = Integer.parseInt(Files.readString(Path.of(\"k.txt\")).trim());\n        Scanner in = new Scanner(System.in);\n"
                . "        while (in.hasNextInt()) System.out.println(k + Solution.twice(in.nextInt()));\n    }\n}\n";
            foreach (['Main.java' => $main, 'k.txt' => "100\n"] as $name => $contents) {
                $db->prepare('INSERT INTO problem_files (problem_id, name, contents) VALUES (?, ?, ?)')->execute([$pid, $name, $contents]);
            }
            $db->prepare("INSERT INTO assignments (kind, user_id, problem_id, title) VALUES ('practice', ?, ?, 't')")->execute([$f->ids['student'], $pid]);
            $aid = (int) $db->lastInsertId();
            $student = "public class Solution {\n    // {$f->tag}\n    public static int twice(int x) { return 2 * x; }\n}\n";
            $r = $f->call('POST', '/execute', ['assignment_id' => $aid, 'env' => 'java', 'code' => $student, 'input' => "1 21\n"]);
            $this->assertSame(['accepted', "102\n142\n"], [$r['json']['verdict'] ?? null, $r['json']['stdout'] ?? null], $r['raw']);
            $r = $f->call('POST', '/compile', ['assignment_id' => $aid, 'env' => 'java', 'code' => "public class Solution { /* {$f->tag} */ }\n"]);
            $this->assertFalse($r['json']['compiled'], $r['raw']);
            $this->assertStringContainsString('twice', (string) $r['json']['raw'], "javac names what the given main needs");
        } finally {
            foreach (['executions', 'compilations'] as $t) {
                $db->prepare("DELETE x FROM $t x JOIN assignments a ON a.id = x.assignment_id WHERE a.problem_id = ?")->execute([$pid]);
            }
            $db->prepare('DELETE c FROM code c JOIN assignments a ON a.id = c.assignment_id WHERE a.problem_id = ?')->execute([$pid]);
            $db->prepare('DELETE FROM assignments WHERE problem_id = ?')->execute([$pid]);
            $db->prepare('DELETE FROM problems WHERE id = ?')->execute([$pid]);
        }
    }

    /** @return array<string, array{0: string, 1: list<string>, 2: string}> Java source, verdicts allowed, what must not be in stdout */
    public static function hostileJava(): array
    {
        return [
            'thread bomb' => ["public class Bomb {\n    public static void main(String[] a) {\n        for (;;) { new Thread(() -> { for (;;) { } }).start(); }\n    }\n}",
                ['time_limit', 'memory_limit', 'runtime_error'], 'never'],
            'TCP connect through reflection' => ["import java.lang.reflect.Constructor;\n\npublic class Net {\n    public static void main(String[] a) throws Exception {\n        Constructor<?> c = Class.forName(\"java.net.Socket\").getConstructor(String.class, int.class);\n        try { c.newInstance(\"127.0.0.1\", 8081); System.out.println(\"CONNECTED\"); }\n        catch (Exception e) { System.out.println(\"refused\"); }\n    }\n}",
                ['accepted', 'forbidden_syscall', 'runtime_error'], 'CONNECTED'],
            'read the host' => ["import java.nio.file.*;\n\npublic class Read {\n    public static void main(String[] a) {\n        for (String p : new String[] {\"/etc/shadow\", \"/etc/prutor/sandbox.conf\", \"/proc/1/environ\"}) {\n            try { System.out.println(\"OPEN \" + Files.readString(Path.of(p))); } catch (Exception e) { System.out.println(\"denied\"); }\n        }\n    }\n}",
                ['accepted'], 'OPEN'],
            'write outside the box' => ["import java.nio.file.*;\n\npublic class Write {\n    public static void main(String[] a) {\n        try { Files.writeString(Path.of(\"/usr/local/lib/prutor-java/owned\"), \"x\"); System.out.println(\"WROTE\"); }\n        catch (Exception e) { System.out.println(\"denied\"); }\n    }\n}",
                ['accepted'], 'WROTE'],
        ];
    }

    /**
     * @dataProvider hostileJava
     * @param list<string> $verdicts
     */
    public function testHostileJavaIsContained(string $code, array $verdicts, string $never): void
    {
        $this->need('java');
        $r = $this->execute('java', $code);
        $this->assertContains($r['verdict'], $verdicts, json_encode($r));
        $this->assertStringNotContainsString($never, $r['stdout']);
        $this->assertFileDoesNotExist('/usr/local/lib/prutor-java/owned');
        usleep(100000);
        $base = (int) (getenv('SANDBOX_SLOT_BASE') ?: 0);
        $users = implode(',', array_map(static fn (int $k): string => 'prutor-box' . ($base + $k), range(0, max(1, (int) (getenv('ENGINE_SLOTS') ?: 2)) - 1)));
        $this->assertSame('', trim((string) shell_exec('ps -o user=,args= -u ' . escapeshellarg($users))), 'no process of a slot user is left');
    }
}
