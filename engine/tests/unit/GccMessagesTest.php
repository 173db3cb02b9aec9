<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\GccMessages;

final class GccMessagesTest extends TestCase
{
    public function testParsesErrorsWarningsAndNotes(): void
    {
        $raw = "main.c: In function 'main':\n"
            . "main.c:3:5: warning: implicit declaration of function 'foo' [-Wimplicit-function-declaration]\n"
            . "    3 |     foo();\n      |     ^~~\n"
            . "main.c:4:13: error: expected ';' before '}' token\n"
            . "main.c:1:10: fatal error: nothere.h: No such file or directory\n"
            . "main.c:2: note: something without a column\n";
        $m = GccMessages::parse($raw);
        $this->assertCount(4, $m);
        $this->assertSame(['line' => 3, 'column' => 5, 'severity' => 'warning',
            'text' => "implicit declaration of function 'foo' [-Wimplicit-function-declaration]"], $m[0]);
        $this->assertSame(['line' => 4, 'column' => 13, 'severity' => 'error', 'text' => "expected ';' before '}' token"], $m[1]);
        $this->assertSame('error', $m[2]['severity']);
        $this->assertSame(['line' => 2, 'column' => 0, 'severity' => 'note', 'text' => 'something without a column'], $m[3]);
    }

    public function testLinkerErrorsBecomeOneEntryAtLineZero(): void
    {
        $raw = "/usr/bin/ld: /tmp/ccX.o: in function `main':\nmain.c:(.text+0x5): undefined reference to `foo'\ncollect2: error: ld returned 1 exit status";
        $m = GccMessages::parse($raw);
        $this->assertCount(1, $m);
        $this->assertSame(0, $m[0]['line']);
        $this->assertSame('error', $m[0]['severity']);
    }

    public function testCleanOutputHasNoEntries(): void
    {
        $this->assertSame([], GccMessages::parse(''));
    }
}
