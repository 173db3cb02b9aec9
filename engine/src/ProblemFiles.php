<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * A problem's support files (rdb problem_files: data, headers, an instructor's main), by
 * name, cached per problem version as its test cases are (problems.updated_at, which the
 * webapp touches on every change of a file).
 */
final class ProblemFiles
{
    /** The column a problem's query adds so that a problem without files costs no query here. */
    public const COUNT_SQL = '(SELECT COUNT(*) FROM problem_files pf WHERE pf.problem_id = p.id) AS support_files';

    /**
     * @param array<string, mixed> $p a problem row with problem_id, updated_at and support_files (COUNT_SQL)
     * @return array<string, string> contents by file name
     */
    public static function of(Config $c, array $p): array
    {
        $problemId = (int) ($p['problem_id'] ?? 0);
        $updatedAt = (string) ($p['updated_at'] ?? '');
        if ($problemId <= 0 || (int) ($p['support_files'] ?? 0) === 0) {
            return [];
        }
        $key = 'pf:' . $problemId . ':' . $updatedAt;
        $files = apcu_fetch($key);
        if (is_array($files)) {
            return $files;
        }
        $files = [];
        foreach (Db::run($c, 'SELECT name, contents FROM problem_files WHERE problem_id = ? ORDER BY name', [$problemId])->fetchAll() as $f) {
            $files[(string) $f['name']] = (string) $f['contents'];
        }
        apcu_store($key, $files, 300);
        return $files;
    }
}
