<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * An instructor's checker program (output validator): compiled once per (language, code)
 * in the binary cache as any program is, and run in the sandbox in a step of its own after
 * the student's run. The student's run never sees the checker, the input file, the
 * expected answer or the feedback directory: its step holds only its own binary (Runner).
 * The checker's step gets copies of the input, the expected answer and the student's
 * output, and a fresh feedback directory; nothing of it outlives the step but what the
 * wrapper below reports.
 *
 * Two conventions:
 * - kattis (Kattis / ICPC output validators): `checker input answer feedback_dir/` with the
 *   student's output on stdin; exit 42 accepts, 43 rejects; feedback_dir/judgemessage.txt
 *   is the message; feedback_dir/score.txt, if written, is the share of the case's weight
 *   earned (0..1), with either exit code.
 * - testlib (Codeforces' testlib.h): `checker input output answer`; exit 0 OK, 1 wrong
 *   answer, 2 presentation error (wrong), 7 points: the share (0..1) is the first number
 *   of its message; the message is what it writes on stderr. Exit 3 (FAIL) is the
 *   checker's own failure.
 * Anything else (another exit code, a signal, the time or memory limit, no compile) is an
 * internal error for the instructor: the student is never marked wrong by a broken checker.
 */
final class Checker
{
    public const INTERFACES = ['kattis', 'testlib'];

    /**
     * A checker step's limits: twice the student's CPU time, within these bounds, and
     * little room for what a judge needs to write (its stdout is thrown away).
     */
    private const MIN_CPU_TIME_MS = 1000;
    private const MAX_CPU_TIME_MS = 10000;
    private const MEMORY_KB = 524288;
    private const FILE_SIZE_KB = 1024;
    private const NPROC = 16;
    private const NOFILE = 64;
    private const OUTPUT_BYTES = 65536;
    /** What is kept of each feedback file and of stderr. */
    private const FEEDBACK_BYTES = 4096;

    /**
     * The checker's step: make the feedback dir, run the checker with its stdout thrown
     * away and its stderr kept, then report its exit code and each feedback file framed
     * by its length (so nothing a checker echoes can pass for a frame). Runs as /usr/bin/sh
     * in the compile step's mode: the one mode that lets a step exec more than once.
     */
    private const WRAPPER = 'mkdir fb || exit 70
"$@" >/dev/null 2>fb/.stderr
rc=$?
printf "rc %s\n" "$rc"
for f in judgemessage.txt score.txt .stderr; do
  n=$(head -c ' . self::FEEDBACK_BYTES . ' "fb/$f" 2>/dev/null | wc -c)
  printf "%s %s\n" "$f" "$n"
  head -c ' . self::FEEDBACK_BYTES . ' "fb/$f" 2>/dev/null
done
exit 0';

    public function __construct(private readonly Config $c, private readonly Runner $runner)
    {
    }

    /**
     * The checker's binary, compiled once (the Runner's cache); null binary and an error when
     * it cannot be used.
     *
     * @return array{binary: ?string, env: ?array<string, mixed>, error: ?string}
     */
    public function prepare(string $envSlug, string $code): array
    {
        try {
            $env = Environments::get($this->c, $envSlug !== '' ? $envSlug : 'c');
        } catch (HttpError $e) {
            return ['binary' => null, 'env' => null, 'error' => 'the checker\'s language: ' . $e->getMessage()];
        }
        if (trim($code) === '') {
            return ['binary' => null, 'env' => $env, 'error' => 'the problem compares with a checker but has none'];
        }
        $cr = $this->runner->compile($env, $code);
        if (!$cr['ok']) {
            return ['binary' => null, 'env' => $env, 'error' => 'the checker does not compile: ' . Output::text($cr['raw'], 2000)];
        }
        return ['binary' => (string) $cr['binary'], 'env' => $env, 'error' => null];
    }

    /** @return array<string, int> */
    public static function limits(int $studentCpuMs): array
    {
        $cpu = max(self::MIN_CPU_TIME_MS, min(self::MAX_CPU_TIME_MS, 2 * $studentCpuMs));
        return [
            'CPU_TIME_MS' => $cpu, 'WALL_TIME_MS' => 2 * $cpu + 1000, 'MEMORY_KB' => self::MEMORY_KB,
            'FILE_SIZE_KB' => self::FILE_SIZE_KB, 'NPROC' => self::NPROC, 'NOFILE' => self::NOFILE, 'OUTPUT_BYTES' => self::OUTPUT_BYTES,
        ];
    }

    /**
     * @param array{binary: ?string, env: ?array<string, mixed>, error: ?string} $prepared
     * @return array{verdict: string, credit: float, message: string, error: ?string}
     *         error (for the instructor) set when the checker failed: verdict internal_error
     */
    public function check(array $prepared, string $interface, string $input, string $answer, string $output, int $studentCpuMs): array
    {
        if ($prepared['binary'] === null || $prepared['env'] === null) {
            return self::failed((string) $prepared['error']);
        }
        $args = $interface === 'testlib' ? ['input', 'output', 'answer'] : ['input', 'answer', 'fb/'];
        $argv = ['/usr/bin/sh', '-c', self::WRAPPER, 'checker', ...Environments::runArgv($prepared['env'], Runner::BINARY, $args)];
        $r = $this->runner->run($prepared['binary'], $output, self::limits($studentCpuMs), $argv,
            ['input' => $input, 'answer' => $answer, 'output' => $output], 'compile');
        if ($r['verdict'] !== Verdict::ACCEPTED) {
            return self::failed('the checker\'s step ended with ' . $r['verdict']
                . ($r['signal_name'] ? ' (' . $r['signal_name'] . ')' : '') . ': ' . Output::text($r['stderr'], 500));
        }
        $rep = self::report($r['stdout']);
        if ($rep === null) {
            return self::failed('the checker\'s step reported nothing readable');
        }
        return self::verdict($interface, $rep['rc'], $rep['files']);
    }

    /**
     * The wrapper's report: "rc N" then per file "name LENGTH" and LENGTH bytes.
     *
     * @return ?array{rc: int, files: array<string, string>}
     */
    public static function report(string $out): ?array
    {
        if (!preg_match('/^rc (\d+)\n/', $out, $m)) {
            return null;
        }
        $pos = strlen($m[0]);
        $files = [];
        foreach (['judgemessage.txt', 'score.txt', '.stderr'] as $name) {
            $nl = $pos < strlen($out) ? strpos($out, "\n", $pos) : false;
            if ($nl === false || !preg_match('/^' . preg_quote($name, '/') . ' (\d+)$/', substr($out, $pos, $nl - $pos), $h)) {
                return null;
            }
            if ($nl + 1 + (int) $h[1] > strlen($out)) {
                return null;
            }
            $files[$name] = substr($out, $nl + 1, (int) $h[1]);
            $pos = $nl + 1 + (int) $h[1];
        }
        return ['rc' => (int) $m[1], 'files' => $files];
    }

    /**
     * The verdict from the checker's exit code and feedback, by its convention.
     *
     * @param array<string, string> $files judgemessage.txt, score.txt, .stderr
     * @return array{verdict: string, credit: float, message: string, error: ?string}
     */
    public static function verdict(string $interface, int $rc, array $files): array
    {
        $stderr = trim($files['.stderr'] ?? '');
        if ($rc > 128 && $rc < 160) {
            // the shell's code for a child killed by a signal (a limit, or a crash)
            return self::failed('the checker was killed by ' . Verdict::signalName($rc - 128) . ': ' . Output::text($stderr, 500));
        }
        if ($interface === 'testlib') {
            return match ($rc) {
                0 => self::judged(1.0, $stderr),
                1, 2 => self::judged(0.0, $stderr),
                7 => preg_match('/^\s*(?:points\s+)?([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/i', $stderr, $m)
                    ? self::judged((float) $m[1], $stderr)
                    : self::failed('the checker gave points (exit 7) without a number first in its message: ' . Output::text($stderr, 500)),
                default => self::failed('the checker exited with ' . $rc . ($rc === 3 ? ' (FAIL)' : '') . ': ' . Output::text($stderr, 500)),
            };
        }
        $message = trim($files['judgemessage.txt'] ?? '');
        if ($rc !== 42 && $rc !== 43) {
            return self::failed('the checker exited with ' . $rc . ' (42 accepts, 43 rejects): '
                . Output::text($message !== '' ? $message : $stderr, 500));
        }
        $score = trim($files['score.txt'] ?? '');
        if ($score === '') {
            return self::judged($rc === 42 ? 1.0 : 0.0, $message);
        }
        if (!is_numeric($score)) {
            return self::failed('the checker wrote a score.txt that is not a number: ' . Output::text($score, 100));
        }
        return self::judged((float) $score, $message);
    }

    /** @return array{verdict: string, credit: float, message: string, error: ?string} */
    private static function judged(float $credit, string $message): array
    {
        $credit = is_nan($credit) ? 0.0 : max(0.0, min(1.0, $credit));
        return [
            'verdict' => $credit >= 1.0 ? Verdict::ACCEPTED : ($credit > 0.0 ? Verdict::PARTIAL : Verdict::WRONG_ANSWER),
            'credit' => $credit,
            'message' => $message,
            'error' => null,
        ];
    }

    /** @return array{verdict: string, credit: float, message: string, error: ?string} */
    private static function failed(string $why): array
    {
        return ['verdict' => Verdict::INTERNAL_ERROR, 'credit' => 0.0, 'message' => '', 'error' => $why];
    }
}
