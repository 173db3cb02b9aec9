<?php

declare(strict_types=1);

namespace Prutor\Engine\Tests;

use PHPUnit\Framework\TestCase;
use Prutor\Engine\HttpError;
use Prutor\Engine\RequestBody;

/** A body is read only within the route's limit; a short one is never parsed. */
final class RequestBodyTest extends TestCase
{
    private string $file;

    protected function setUp(): void
    {
        $this->file = (string) tempnam(sys_get_temp_dir(), 'body');
    }

    protected function tearDown(): void
    {
        @unlink($this->file);
    }

    /** @param array<string, string> $server */
    private function status(array $server, string $body, int $max): int
    {
        file_put_contents($this->file, $body);
        try {
            RequestBody::read($server, $max, $this->file);
            return 200;
        } catch (HttpError $e) {
            return $e->status;
        }
    }

    public function testTheLimitIsCheckedBeforeReadingAndTheBodyMustBeWhole(): void
    {
        file_put_contents($this->file, '{"a":1}');
        $this->assertSame('{"a":1}', RequestBody::read(['CONTENT_LENGTH' => '7'], 100, $this->file));
        // a source that cannot be opened answers 500: a 413 here means nothing was read
        foreach (['2000', '99999999999999999999999'] as $declared) {
            try {
                RequestBody::read(['CONTENT_LENGTH' => $declared], 1024, $this->file . '.absent');
                $this->fail('a declared length over the limit was accepted');
            } catch (HttpError $e) {
                $this->assertSame([413, 'the request is too large (at most 1 KiB)'], [$e->status, $e->getMessage()], $declared);
            }
        }
        $this->assertSame(413, $this->status([], str_repeat('x', 1025), 1024), 'no length (chunked): read up to the limit, refused past it');
        $this->assertSame(200, $this->status([], str_repeat('x', 1024), 1024));
        $this->assertSame(408, $this->status(['CONTENT_LENGTH' => '100'], str_repeat('x', 10), 1024), 'cut off before its declared end');
        $this->assertSame(400, $this->status(['CONTENT_LENGTH' => '12abc'], '', 1024));
    }
}
