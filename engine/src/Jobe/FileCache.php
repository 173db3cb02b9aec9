<?php

declare(strict_types=1);

namespace Prutor\Engine\Jobe;

use Prutor\Engine\Config;
use Prutor\Engine\HttpError;
use Prutor\Engine\LruFolder;

/**
 * Support files of the Jobe API (PUT/HEAD files/{id}, a run's file_list), kept under
 * $ENGINE_VAR/jobe-files. A cache, as Jobe's is: bounded by ENGINE_JOBE_FILES_MAX_BYTES
 * and ENGINE_JOBE_FILES_MAX_FILES in total (least recently used files go first: LruFolder)
 * and ENGINE_JOBE_FILE_MAX_BYTES each; CodeRunner puts a file again when a run answers 404.
 *
 * Every caller has its own space: a file is stored as <space>-<id>, the space being derived
 * from the caller's key (Access: "k" + the key's id) or opened address, so a key can check,
 * use in a run and overwrite only the files it put itself; another key's id is "not found"
 * (404) for it, whether it guessed the id or learnt it. File ids stay the client's strings
 * (Jobe's protocol), restricted to 8-64 letters and digits.
 */
final class FileCache
{
    private string $dir;

    /** @param string $space the caller's space (Access::admit()['space']): a letter and hex digits */
    public function __construct(private readonly Config $c, private readonly string $space)
    {
        if (!preg_match('/\A[a-z][0-9a-f]{12}\z/', $space)) {
            throw new \InvalidArgumentException('FileCache: not a caller\'s space: ' . substr($space, 0, 20));
        }
        $this->dir = $c->engineDir . '/jobe-files';
    }

    public static function validId(string $id): bool
    {
        return strlen($id) >= 8 && strlen($id) <= 64 && ctype_alnum($id);
    }

    /** Where the caller's file $id is stored (the id must be valid). */
    private function path(string $id): string
    {
        return $this->dir . '/' . $this->space . '-' . $id;
    }

    public function has(string $id): bool
    {
        return self::validId($id) && is_file($this->path($id));
    }

    public function get(string $id): ?string
    {
        if (!$this->has($id)) {
            return null;
        }
        $path = $this->path($id);
        $data = @file_get_contents($path);
        if ($data === false) {
            return null;
        }
        @touch($path);
        return $data;
    }

    public function put(string $id, string $base64): void
    {
        if (!self::validId($id)) {
            throw new HttpError(400, 'put: the file id must be 8 to 64 letters and digits');
        }
        if (strlen($base64) > intdiv($this->c->jobeFileMaxBytes * 4, 3) + 4) {
            throw new HttpError(413, 'put: file ' . $id . ' is larger than this server accepts (' . $this->c->jobeFileMaxBytes . ' bytes)');
        }
        $contents = base64_decode($base64, true);
        if ($contents === false) {
            throw new HttpError(400, 'put: contents of file ' . $id . ' are not valid base-64');
        }
        if (strlen($contents) > $this->c->jobeFileMaxBytes) {
            throw new HttpError(413, 'put: file ' . $id . ' is larger than this server accepts (' . $this->c->jobeFileMaxBytes . ' bytes)');
        }
        if (!is_dir($this->dir)) {
            @mkdir($this->dir, 0700, true);
        }
        $path = $this->path($id);
        $replaced = @filesize($path);
        $tmp = $this->dir . '/.tmp' . getmypid() . '-' . $this->space . '-' . $id;
        if (@file_put_contents($tmp, $contents) !== strlen($contents) || !@rename($tmp, $path)) {
            @unlink($tmp);
            throw new HttpError(500, 'put: failed to write file ' . $id . ' to cache');
        }
        $this->bounded()->inserted($replaced === false ? 1 : 0, strlen($contents) - (int) $replaced);
    }

    /** The folder's bounds and eviction, the compile cache's rule (entries: every name not starting with a dot) */
    private function bounded(): LruFolder
    {
        return new LruFolder($this->dir, 'jobe-files', $this->c->jobeFilesMaxFiles, $this->c->jobeFilesMaxBytes,
            static fn (string $f): bool => $f[0] !== '.');
    }
}
