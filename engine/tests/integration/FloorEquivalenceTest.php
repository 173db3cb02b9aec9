<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Environments;
use Prutor\Engine\Runner;

/**
 * The engine builds its programs faster than plain gcc / g++ (Runner::compileCommand: another
 * linker), and they must be the programs plain gcc / g++ builds: each program of a corpus of
 * student-like code is built and run by the engine (/execute) and by the floor (the
 * environment's own compile line, no server, no sandbox), and must give the same output, exit
 * code and signal. The corpus leans on what a linker decides: a student's own definitions of
 * library names (which the program's copy wins), constructors with priorities and atexit
 * order, thread-local storage, weak symbols, C++ exceptions (unwinding through the linker's
 * .eh_frame_hdr), RTTI; and on what the compile must see in order: macros before includes
 * (_GNU_SOURCE, NDEBUG, _GLIBCXX_DEBUG, `#define int long long` after bits/stdc++.h) and #pragmas.
 */
final class FloorEquivalenceTest extends TestCase
{
    private static ?Fixture $f = null;

    public static function setUpBeforeClass(): void
    {
        self::$f = Fixture::open();
    }

    public static function tearDownAfterClass(): void
    {
        self::$f?->cleanup();
    }

    /** @return array<string, array{0: string, 1: string, 2: string}> env, code, stdin */
    public static function corpus(): array
    {
        $c = static fn (string $code, string $in = ''): array => ['c', $code, $in];
        $cpp = static fn (string $code, string $in = ''): array => ['cpp', $code, $in];
        return [
            'c: own puts, which printf("...\n") becomes' => $c(<<<'C'
                #include <stdio.h>
                #include <string.h>
                int puts(const char *s) { fputs("mine: ", stdout); fputs(s, stdout); return fputc('\n', stdout); }
                int main(void) { printf("hello\n"); return (int) strlen("abc"); }
                C),
            'c: own sqrt beside -lm, own time as data' => $c(<<<'C'
                #include <stdio.h>
                double sqrt(double x) { return x * 10; }
                int time = 7;
                int main(void) { volatile double v = 4; printf("%g %d\n", sqrt(v), time); return 0; }
                C),
            'c: libm, stdin, exit code' => $c(<<<'C'
                #include <stdio.h>
                #include <math.h>
                int main(void) {
                    double a, b; long n = 0;
                    while (scanf("%lf %lf", &a, &b) == 2) { printf("%.12f %.12f\n", pow(a, b), sin(a) + log1p(b)); n++; }
                    return (int) n;
                }
                C, "2 0.5\n3 4\n-1.5 2\n"),
            'c: _GNU_SOURCE before the include' => $c(<<<'C'
                #define _GNU_SOURCE
                #include <string.h>
                #include <stdio.h>
                int main(void) { const char *p = strcasestr("Hello World", "WORLD"); printf("%s\n", p ? p : "none"); return 0; }
                C),
            'c: NDEBUG before assert.h' => $c(<<<'C'
                #define NDEBUG
                #include <assert.h>
                #include <stdio.h>
                int main(void) { assert(1 == 2); puts("assert compiled out"); return 0; }
                C),
            'c: assert without NDEBUG aborts' => $c(<<<'C'
                #include <assert.h>
                #include <stdio.h>
                int main(void) { puts("before"); fflush(stdout); assert(1 == 2); return 0; }
                C),
            'c: constructors by priority, atexit order, weak symbol' => $c(<<<'C'
                #include <stdio.h>
                #include <stdlib.h>
                extern int missing __attribute__((weak));
                __attribute__((constructor(102))) static void second(void) { puts("ctor 102"); }
                __attribute__((constructor(101))) static void first(void) { puts("ctor 101"); }
                __attribute__((constructor)) static void last(void) { puts("ctor"); }
                static void bye1(void) { puts("bye1"); }
                static void bye2(void) { puts("bye2"); }
                int main(void) { atexit(bye1); atexit(bye2); printf("weak %s\n", &missing ? "defined" : "null"); return 0; }
                C),
            'c: _Thread_local, pragma pack, GCC optimize pragma' => $c(<<<'C'
                #pragma GCC optimize("unroll-loops")
                #include <stdio.h>
                #pragma pack(push, 1)
                struct packed { char c; int i; double d; };
                #pragma pack(pop)
                struct plain { char c; int i; double d; };
                static _Thread_local int tls = 41;
                int main(void) { tls++; long s = 0; for (int i = 0; i < 1000; i++) s += i * i;
                    printf("%zu %zu %d %ld\n", sizeof(struct packed), sizeof(struct plain), tls, s); return 0; }
                C),
            'c: null dereference is a signal' => $c(<<<'C'
                #include <stdio.h>
                int main(void) { volatile int *p = 0; puts("x"); fflush(stdout); return *p; }
                C),
            'cpp: iostream, vector, algorithm, map, string' => $cpp(<<<'CPP'
                #include <iostream>
                #include <vector>
                #include <algorithm>
                #include <map>
                #include <string>
                int main() {
                    std::vector<int> v; int x; while (std::cin >> x) v.push_back(x);
                    std::sort(v.begin(), v.end(), std::greater<int>());
                    std::map<std::string, int> m; for (int y : v) m[std::to_string(y % 3)] += y;
                    for (auto &[k, s] : m) std::cout << k << '=' << s << '\n';
                    std::cout << *std::max_element(v.begin(), v.end()) << std::endl;
                }
                CPP, "5 3 9 1 12 7\n"),
            'cpp: exceptions, RTTI, virtual calls, static locals' => $cpp(<<<'CPP'
                #include <iostream>
                #include <stdexcept>
                #include <typeinfo>
                #include <memory>
                #include <vector>
                struct Shape { virtual ~Shape() = default; virtual double area() const = 0; };
                struct Sq : Shape { double s; explicit Sq(double s) : s(s) {} double area() const override { return s * s; } };
                static int counter() { static int n = 0; return ++n; }
                int main() {
                    std::unique_ptr<Shape> p = std::make_unique<Sq>(3);
                    std::cout << p->area() << ' ' << (typeid(*p) == typeid(Sq)) << '\n';
                    try { throw std::runtime_error("boom"); } catch (const std::exception &e) { std::cout << "caught " << e.what() << '\n'; }
                    try { std::vector<int>(2).at(5); } catch (const std::out_of_range &) { std::cout << "range\n"; }
                    counter(); std::cout << counter() << '\n';
                    std::cout.flush();
                    throw 42;
                }
                CPP),
            'cpp: bits/stdc++.h then #define int long long' => $cpp(<<<'CPP'
                #include <bits/stdc++.h>
                using namespace std;
                #define int long long
                int max(int a, int b, int c) { return std::max(a, std::max(b, c)); }
                signed main() { int a = 1LL << 40; cout << max(a, 3, 5) << ' ' << sizeof(int) << '\n'; return 0; }
                CPP),
            'cpp: own count and swap beside using namespace std' => $cpp(<<<'CPP'
                #include <iostream>
                #include <algorithm>
                using namespace std;
                int count = 3;
                void swap(int &a, int &b) { int t = a; a = b + 100; b = t; }
                int main() { int a = 1, b = 2; swap(a, b); cout << ::count << ' ' << a << ' ' << b << '\n'; }
                CPP),
            'cpp: _GLIBCXX_DEBUG before vector catches the bad index' => $cpp(<<<'CPP'
                #define _GLIBCXX_DEBUG
                #include <vector>
                #include <iostream>
                int main() { std::vector<int> v(3); std::cout << "start" << std::endl; return v[7]; }
                CPP),
            'cpp: #pragma pack before bits/stdc++.h' => $cpp(<<<'CPP'
                #pragma pack(1)
                #include <bits/stdc++.h>
                int main() { std::cout << sizeof(std::pair<char, int>) << ' ' << sizeof(std::tuple<char, long>) << '\n'; }
                CPP),
            'cpp: NDEBUG before bits/stdc++.h' => $cpp(<<<'CPP'
                #define NDEBUG
                #include <bits/stdc++.h>
                int main() { assert(false); std::cout << "assert compiled out\n"; }
                CPP),
            'cpp: a macro the header uses, defined before <iostream>' => $cpp(<<<'CPP'
                #define _GLIBCXX_USE_CXX11_ABI 0
                #include <iostream>
                #include <string>
                int main() { std::string s = "abc"; std::cout << sizeof(s) << ' ' << s << '\n'; }
                CPP),
            'cpp: code before the first include' => $cpp(<<<'CPP'
                static int before = 5;
                #include <iostream>
                int main() { std::cout << before << '\n'; }
                CPP),
            'cpp: thread_local and a GCC optimize pragma' => $cpp(<<<'CPP'
                #pragma GCC optimize("O3")
                #include <iostream>
                #include <thread>
                thread_local int t = 1;
                int main() { int seen = 0; std::thread th([&] { t += 10; seen = t; }); th.join(); std::cout << t << ' ' << seen << '\n'; }
                CPP),
        ];
    }

    /** @dataProvider corpus */
    public function testTheEngineBuildsTheProgramPlainGccBuilds(string $lang, string $code, string $input): void
    {
        $f = self::$f ?? throw new \LogicException('no fixture');
        $floor = self::floor($lang, $code, $input);
        // a tag of this run, so that the engine compiles rather than serves an earlier binary
        $r = $f->call('POST', '/execute', ['assignment_id' => $f->ids['practice'], 'env' => $lang,
            'code' => $code . "\n// " . $f->tag . "\n", 'input' => $input]);
        $this->assertSame(200, $r['status'], $r['raw']);
        $e = $r['json'];
        $this->assertSame(false, $e['from_cache'], 'the engine compiled it');
        $this->assertSame($floor['stdout'], $e['stdout'], 'stdout as plain ' . $lang);
        $this->assertSame($floor['exit'], $e['exit_code'], 'exit code as plain ' . $lang . ': ' . json_encode($e));
        $this->assertSame($floor['signal'], $e['signal'], 'signal as plain ' . $lang);
    }

    public function testTheEngineLineIsTheFloorsWithOnlyTheLinkerAndThePrecompiledHeadersAdded(): void
    {
        foreach (['c' => 'main.c', 'cpp' => 'main.cpp'] as $lang => $src) {
            $env = self::env($lang);
            $floor = Environments::compileArgv($env, $src, Runner::BINARY);
            $engine = Runner::compileCommand($env, $src);
            $this->assertSame('/usr/bin/' . $floor[0], $engine[0]);
            $added = $lang === 'cpp' ? ['-I', Runner::PCH_DIR, ...Runner::LINKER_ARGS] : Runner::LINKER_ARGS;
            $this->assertSame($added, array_slice($engine, 1, count($added)));
            $this->assertSame(array_slice($floor, 1), array_slice($engine, 1 + count($added)));
        }
    }

    /**
     * The precompiled headers engine/pch.sh installed are the ones g++ takes with the cpp
     * environment's flags as they are now (a change of flags or of g++ needs engine/pch.sh again,
     * else every C++ compile silently pays the full parse).
     */
    public function testThePrecompiledHeadersAreValidForTheCppFlags(): void
    {
        $args = (array) self::env('cpp')['compile_args'];
        foreach (['iostream', 'bits/stdc++.h', 'vector', 'algorithm'] as $h) {
            $p = proc_open(['g++', ...$args, '-I', Runner::PCH_DIR, '-Winvalid-pch', '-H', '-fsyntax-only', '-x', 'c++', '-'],
                [0 => ['pipe', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['pipe', 'w']], $pipes);
            fwrite($pipes[0], "#include <$h>\nint main() {}\n");
            fclose($pipes[0]);
            $err = (string) stream_get_contents($pipes[2]);
            fclose($pipes[2]);
            $this->assertSame(0, proc_close($p), $err);
            $this->assertStringStartsWith('! ' . Runner::PCH_DIR . "/$h.gch\n", $err, "g++ uses the precompiled <$h> (engine/pch.sh)");
        }
    }

    /** @return array<string, mixed> */
    private static function env(string $lang): array
    {
        $all = json_decode((string) file_get_contents(__DIR__ . '/../../config/environments.json'), true);
        foreach ($all as $e) {
            if ($e['slug'] === $lang) {
                return $e;
            }
        }
        throw new \LogicException('no environment ' . $lang);
    }

    /**
     * The floor's build and run: the environment's compile line exactly as plain gcc / g++ runs
     * it, in a temporary directory, then the program with the input.
     *
     * @return array{stdout: string, exit: ?int, signal: ?int}
     */
    private static function floor(string $lang, string $code, string $input): array
    {
        $dir = sys_get_temp_dir() . '/prutor-floor-' . bin2hex(random_bytes(6));
        mkdir($dir);
        try {
            $src = $lang === 'c' ? 'main.c' : 'main.cpp';
            file_put_contents($dir . '/' . $src, $code);
            $argv = Environments::compileArgv(self::env($lang), $src, Runner::BINARY);
            $p = proc_open($argv, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $dir);
            $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            if (proc_close($p) !== 0) {
                throw new \RuntimeException("plain $lang does not build it: $out");
            }
            file_put_contents($dir . '/in', $input);
            $p = proc_open([$dir . '/' . Runner::BINARY], [0 => ['file', $dir . '/in', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, $dir);
            $stdout = (string) stream_get_contents($pipes[1]);
            fclose($pipes[1]);
            do {
                $st = proc_get_status($p);
                if ($st['running']) {
                    usleep(2000);
                }
            } while ($st['running']);
            proc_close($p);
            $signal = $st['signaled'] ? (int) $st['termsig'] : null;
            return ['stdout' => $stdout, 'exit' => $signal === null ? (int) $st['exitcode'] : null, 'signal' => $signal];
        } finally {
            foreach ((array) glob($dir . '/*') as $file) {
                @unlink((string) $file);
            }
            @rmdir($dir);
        }
    }
}
