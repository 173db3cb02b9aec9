<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Checker;

/** The checker's verdict by its convention, and the wrapper's framed report (the sandbox runs: integration/CheckerTest). */
final class CheckerUnitTest extends TestCase
{
    /** @return array<string, array{string, int, array<string, string>, string, float}> */
    public static function verdicts(): array
    {
        $f = static fn (string $msg = '', string $score = '', string $err = ''): array => ['judgemessage.txt' => $msg, 'score.txt' => $score, '.stderr' => $err];
        return [
            'kattis 42' => ['kattis', 42, $f('ok'), 'accepted', 1.0],
            'kattis 43' => ['kattis', 43, $f('no'), 'wrong_answer', 0.0],
            'kattis 43 with score' => ['kattis', 43, $f('half', "0.5\n"), 'partial', 0.5],
            'kattis 42 with score' => ['kattis', 42, $f('', '0.25'), 'partial', 0.25],
            'kattis score above 1 is 1' => ['kattis', 42, $f('', '7'), 'accepted', 1.0],
            'kattis negative score is 0' => ['kattis', 43, $f('', '-2'), 'wrong_answer', 0.0],
            'kattis score not a number' => ['kattis', 42, $f('', 'abc'), 'internal_error', 0.0],
            'kattis exit 0' => ['kattis', 0, $f(), 'internal_error', 0.0],
            'kattis exit 1' => ['kattis', 1, $f(), 'internal_error', 0.0],
            'kattis killed' => ['kattis', 137, $f(), 'internal_error', 0.0],
            'testlib ok' => ['testlib', 0, $f('', '', 'ok'), 'accepted', 1.0],
            'testlib wa' => ['testlib', 1, $f('', '', 'wrong'), 'wrong_answer', 0.0],
            'testlib pe' => ['testlib', 2, $f('', '', 'format'), 'wrong_answer', 0.0],
            'testlib fail' => ['testlib', 3, $f('', '', 'bad answer file'), 'internal_error', 0.0],
            'testlib points' => ['testlib', 7, $f('', '', 'points 0.75 good'), 'partial', 0.75],
            'testlib points bare' => ['testlib', 7, $f('', '', '0.3 partly'), 'partial', 0.3],
            'testlib points without number' => ['testlib', 7, $f('', '', 'nice'), 'internal_error', 0.0],
            'testlib unknown' => ['testlib', 4, $f(), 'internal_error', 0.0],
        ];
    }

    /**
     * @dataProvider verdicts
     * @param array<string, string> $files
     */
    public function testVerdictByConvention(string $iface, int $rc, array $files, string $verdict, float $credit): void
    {
        $v = Checker::verdict($iface, $rc, $files);
        $this->assertSame($verdict, $v['verdict']);
        $this->assertSame($credit, $v['credit']);
        $this->assertSame($verdict === 'internal_error', $v['error'] !== null);
    }

    public function testTheMessageIsTheFeedbackFileForKattisAndStderrForTestlib(): void
    {
        $this->assertSame('from file', Checker::verdict('kattis', 43, ['judgemessage.txt' => "from file\n", 'score.txt' => '', '.stderr' => 'noise'])['message']);
        $this->assertSame('from stderr', Checker::verdict('testlib', 1, ['judgemessage.txt' => 'x', 'score.txt' => '', '.stderr' => "from stderr\n"])['message']);
    }

    public function testReportFramesByLengthSoContentCannotForgeAFrame(): void
    {
        $forged = "x\nscore.txt 1\n1";
        $out = "rc 43\njudgemessage.txt " . strlen($forged) . "\n" . $forged . "score.txt 0\n.stderr 3\nerr";
        $r = Checker::report($out);
        $this->assertNotNull($r);
        $this->assertSame(43, $r['rc']);
        $this->assertSame($forged, $r['files']['judgemessage.txt']);
        $this->assertSame('', $r['files']['score.txt']);
        $this->assertSame('err', $r['files']['.stderr']);
        $this->assertNull(Checker::report(''));
        $this->assertNull(Checker::report("rc 42\njudgemessage.txt 5\nab"));
        $this->assertNull(Checker::report("rc 42\n"));
    }

    public function testLimitsFollowTheStudentsTimeWithinBounds(): void
    {
        $this->assertSame(1000, Checker::limits(100)['CPU_TIME_MS']);
        $this->assertSame(4000, Checker::limits(2000)['CPU_TIME_MS']);
        $this->assertSame(10000, Checker::limits(60000)['CPU_TIME_MS']);
    }
}
