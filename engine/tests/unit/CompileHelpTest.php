<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\CompileHelp;
use Prutor\Engine\Config;
use Prutor\Engine\GccMessages;
use Prutor\Engine\Help\CompileHelper;

/** A helper that fails, to show a broken helper never fails a compile. */
final class FailingHelper implements CompileHelper
{
    public function explain(array $messages, string $code): array
    {
        throw new \RuntimeException('helper down');
    }
}

/** Another helper plugged in through the same hook. */
final class ShoutingHelper implements CompileHelper
{
    public function explain(array $messages, string $code): array
    {
        return array_map(static fn (array $m): string => strtoupper($m['text']), $messages);
    }
}

final class CompileHelpTest extends TestCase
{
    /**
     * Twenty beginners' mistakes compiled by the real gcc with the C environment's
     * flags; the rule-based helper must explain the first error (or warning) of each.
     * @return array<string, array{string, string}>
     */
    public static function mistakes(): array
    {
        $main = static fn (string $body, string $head = "#include <stdio.h>\n"): string => $head . "int main(void) {\n" . $body . "\n    return 0;\n}\n";
        return [
            'missing semicolon' => [$main("    int x = 1\n    printf(\"%d\", x);"), '/semicolon is missing/'],
            'undeclared' => [$main('    total = 5;'), '/`total` is used but was never declared/'],
            'missing header' => [$main('    printf("hi");', ''), '/#include <stdio.h>/'],
            'missing brace' => ["#include <stdio.h>\nint main(void) {\n    if (1) {\n        puts(\"x\");\n    return 0;\n}\n", '/`\\{` has no matching `\\}`/'],
            'missing paren' => [$main('    if ((1 + 2) > 1 { puts("x"); }'), '/closing parenthesis/'],
            'expected expression' => [$main('    int x = ;'), '/gcc expected a value/'],
            'else without if' => [$main("    int x = 1;\n    if (x > 0);\n        puts(\"a\");\n    else\n        puts(\"b\");"), '/`else` has no `if`/'],
            'scanf without &' => [$main("    int x;\n    scanf(\"%d\", x);"), '/write `&` before it/'],
            'printf format' => [$main("    double d = 1.5;\n    printf(\"%d\", d);"), '/format `%d` is for a int, but argument 2 is a double/'],
            'too few arguments' => ["#include <stdio.h>\nint add(int a, int b) { return a + b; }\nint main(void) { return add(1); }\n", '/fewer values/'],
            'conflicting types' => ["#include <stdio.h>\nint main(void) { return twice(2); }\ndouble twice(double x) { return 2 * x; }\n", '/(prototype|does not know the function)/'],
            'redefinition' => [$main("    int x = 1;\n    int x = 2;\n    printf(\"%d\", x);"), '/declared twice/'],
            'missing return' => ["#include <stdio.h>\nint sign(int x) { if (x > 0) return 1; }\nint main(void) { return sign(2); }\n", '/without `return`/'],
            'assignment as condition' => [$main("    int x = 1;\n    if (x = 2) puts(\"two\");"), '/write `==`/'],
            'uninitialized' => [$main("    int n;\n    printf(\"%d\", n);"), '/read before it was given a value/'],
            'no main' => ["#include <stdio.h>\nint Main(void) { return 0; }\n", '/no `main` function/'],
            'curly quotes' => [$main("    printf(\u{201C}hi\u{201D});"), '/curly quote/'],
            'unterminated string' => [$main("    printf(\"hi);"), '/not closed/'],
            'assign to constant' => [$main("    int x = 1;\n    if (x + 1 = 2) puts(\"x\");"), '/left side of `=` must be a variable/'],
            'bool without header' => [$main('    bool ok = 1; (void) ok;'), '/stdbool\\.h/'],
            'string type' => [$main('    string s; (void) s;'), '/char array/'],
            'char vs string' => [$main("    char c = 'a';\n    if (c == \"a\") puts(\"a\");"), '/single quotes/'],
            'bad header' => [$main('', "#include <stdoi.h>\n"), '/stdio\\.h, stdlib\\.h/'],
        ];
    }

    /** @dataProvider mistakes */
    public function testTheRuleBasedHelperExplainsGccsOwnMessage(string $code, string $expect): void
    {
        $dir = sys_get_temp_dir() . '/prutor-help-' . getmypid();
        @mkdir($dir);
        file_put_contents($dir . '/main.c', $code);
        $raw = (string) shell_exec('cd ' . escapeshellarg($dir) . ' && gcc -std=c11 -O2 -Wall -o prog main.c -lm 2>&1');
        $messages = GccMessages::parse($raw);
        $this->assertNotEmpty($messages, $raw);
        $out = CompileHelp::annotate(Config::fromEnv([]), $messages, $code);
        $helps = implode("\n", array_column($out, 'help'));
        $this->assertMatchesRegularExpression($expect, $helps, "gcc said:\n" . $raw);
    }

    public function testAnotherHelperPlugsInAndABrokenOneIsIgnored(): void
    {
        $messages = [['line' => 3, 'column' => 5, 'severity' => 'error', 'text' => "expected ';' before 'return'"]];
        $out = CompileHelp::annotate(Config::fromEnv(['ENGINE_COMPILE_HELPER' => ShoutingHelper::class]), $messages, '');
        $this->assertSame("EXPECTED ';' BEFORE 'RETURN'", $out[0]['help']);
        $long = [['line' => 1, 'column' => 1, 'severity' => 'error', 'text' => str_repeat('é', 1500)]];
        $cut = CompileHelp::annotate(Config::fromEnv(['ENGINE_COMPILE_HELPER' => ShoutingHelper::class]), $long, '')[0]['help'];
        $this->assertSame(1000, preg_match_all('/./su', $cut), 'help is cut at 1000 characters, on a character boundary');
        $this->assertSame($messages, CompileHelp::annotate(Config::fromEnv(['ENGINE_COMPILE_HELPER' => FailingHelper::class]), $messages, ''));
        $this->assertSame($messages, CompileHelp::annotate(Config::fromEnv(['ENGINE_COMPILE_HELPER' => 'none']), $messages, ''));
        $this->assertSame($messages, CompileHelp::annotate(Config::fromEnv(['ENGINE_COMPILE_HELPER' => \stdClass::class]), $messages, ''));
    }
}
