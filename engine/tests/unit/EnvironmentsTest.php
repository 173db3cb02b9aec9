<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\Config;
use Prutor\Engine\Environments;
use Prutor\Engine\Jobe\Runs;
use Prutor\Engine\Runner;

/**
 * The environments' pure rules for the languages of issue 28: a Java source's name from its
 * class, a JVM's sizes from the memory limit, the support sources compiled with a student's
 * file, and what a run sees of them.
 */
final class EnvironmentsTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function env(string $slug): array
    {
        $all = json_decode((string) file_get_contents(dirname(__DIR__, 3) . '/nosql/environments.json'), true);
        foreach ($all as $e) {
            if ($e['slug'] === $slug) {
                return $e;
            }
        }
        throw new \LogicException($slug);
    }

    public function testAJavaSourceIsNamedAfterItsPublicClassWithMainAsJobeDoes(): void
    {
        $java = self::env('java');
        $this->assertSame('Greeter.java', Runner::sourceName($java, "import java.util.*;\npublic class Greeter extends Object {\n  public static void main(String[] a) {}\n}\n"));
        $this->assertSame('Fin.java', Runner::sourceName($java, "public final class Fin { static public void main(String... a) {} }"));
        // no public class with main, or two: the environment's name, as Jobe falls back to a fixed one
        $this->assertSame('Main.java', Runner::sourceName($java, "class Hidden { public static void main(String[] a) {} }"));
        $this->assertSame('Main.java', Runner::sourceName($java, "public class A { public static void main(String[] a) {} }\npublic class B { public static void main(String[] a) {} }"));
        $this->assertSame('main.c', Runner::sourceName(self::env('c'), 'public class X { public static void main(String[] a) {} }'));
    }

    public function testTheCacheKeyFollowsTheClassName(): void
    {
        $java = self::env('java');
        $a = "public class A { public static void main(String[] a) { System.out.println(1); } }";
        $this->assertNotSame(Runner::hash($java, $a), Runner::hash($java, str_replace('class A', 'class B', $a)));
        $this->assertNotSame(Runner::hash(self::env('c'), 'int main;'), Runner::hash(self::env('c'), 'int main;', ['data.txt' => '1']));
        $this->assertNotSame(Runner::hash(self::env('c'), 'int main;', ['data.txt' => '1']), Runner::hash(self::env('c'), 'int main;', ['data.txt' => '2']));
    }

    public function testAJvmIsSizedFromTheMemoryLimit(): void
    {
        $run = Environments::runArgv(self::env('java'), Runner::BINARY);
        $this->assertContains('-Xmx{heap_mb}m', $run);
        $sized = static fn (int $kb, bool $cg): array => Environments::sizeArgv($run, ['MEMORY_KB' => $kb], $cg);
        // with a memory cgroup the heap is the whole limit: the cgroup answers memory_limit
        $this->assertContains('-Xmx64m', $sized(65536, true));
        $this->assertContains('-Xss2m', $sized(65536, true));
        $this->assertContains('-Xss8m', $sized(262144, true), "Jobe's stack at 256 MB");
        $this->assertContains('-Xss16m', $sized(4194304, true), 'at most 16 MB');
        // with RLIMIT_AS only, the JVM's own reservations must fit beside the heap
        $this->assertContains('-Xmx160m', $sized(524288, false));
        $this->assertContains('-Xss4m', $sized(524288, false), 'small thread stacks: each is reserved in the address space');
        $this->assertContains('-Xss4m', $sized(4194304, false));
        $this->assertContains('-Xmx16m', $sized(262144, false), 'never below 16 MB');
        foreach ($sized(262144, true) as $arg) {
            $this->assertStringNotContainsString('{', $arg, 'every placeholder filled');
        }
        // a line without sizes is left as it was
        $c = Environments::runArgv(self::env('c'), Runner::BINARY);
        $this->assertSame($c, Environments::sizeArgv($c, ['MEMORY_KB' => 65536], true));
    }

    public function testJobesJavaDisregardsTheCallersMemoryLimitAsJobeDoes(): void
    {
        $c = Config::fromEnv([]);
        $this->assertSame(1000 * 1024, Runs::limits($c, self::env('java'), ['memorylimit' => 64])['MEMORY_KB']);
        $this->assertSame(256, Runs::limits($c, self::env('java'), ['numprocs' => 10])['NPROC'], "Jobe's Java: at least 256 processes");
        $this->assertSame(64 * 1024, Runs::limits($c, self::env('python3'), ['memorylimit' => 64])['MEMORY_KB'], 'the others honour it');
    }

    public function testSupportSourcesAreCompiledWithTheStudentsOnlyWhereTheEnvironmentSaysSo(): void
    {
        $files = ['zeta.c' => '', 'harness.c' => '', 'list.h' => '', 'data.txt' => ''];
        $c = self::env('c');
        $this->assertSame(['harness.c', 'zeta.c'], Environments::moreSources($c, $files));
        $argv = Environments::compileArgv($c, 'main.c', 'prog', Environments::moreSources($c, $files));
        $at = array_search('main.c', $argv, true);
        $this->assertSame(['main.c', 'harness.c', 'zeta.c'], array_slice($argv, (int) $at, 3));
        $this->assertSame(['list.h', 'data.txt'], array_keys(Runner::runFiles($c, $files)), 'a run sees the data, not the sources in its binary');
        // Python's compile line takes exactly its source and its output: no support source joins it
        $py = self::env('python3');
        $this->assertSame(Environments::compileArgv($py, 'main.py', 'prog'), Environments::compileArgv($py, 'main.py', 'prog', ['helper.py']));
        $this->assertSame(['helper.py' => ''], Runner::runFiles($py, ['helper.py' => '']), 'a Python module is read at run time');
    }
}
