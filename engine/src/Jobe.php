<?php

declare(strict_types=1);

namespace Prutor\Engine;

/** Jobe-compatible runs (POST /jobe/index.php/restapi/runs) for Moodle CodeRunner. */
final class Jobe
{
    public function __construct(private readonly Config $c)
    {
    }

    /**
     * @param array<string, mixed> $in
     * @return array{0: int, 1: mixed, 2: array<string, string>}
     */
    public function run(array $in): array
    {
        $spec = $in['run_spec'] ?? null;
        if (!is_array($spec) || !is_string($spec['sourcecode'] ?? null) || !is_string($spec['language_id'] ?? null)) {
            throw new HttpError(400, 'run_spec with language_id and sourcecode is required');
        }
        if (strlen($spec['sourcecode']) > 262144) {
            throw new HttpError(413, 'sourcecode is too long');
        }
        $envs = Environments::all($this->c);
        if (!isset($envs[$spec['language_id']])) {
            throw new HttpError(400, 'language ' . substr($spec['language_id'], 0, 32) . ' is not known');
        }
        $env = $envs[$spec['language_id']];
        $params = is_array($spec['parameters'] ?? null) ? $spec['parameters'] : [];
        $problem = [];
        if (isset($params['cputime']) && is_numeric($params['cputime'])) {
            $problem['CPU_TIME_MS'] = (int) round((float) $params['cputime'] * 1000);
        }
        if (isset($params['memorylimit']) && is_numeric($params['memorylimit'])) {
            $problem['MEMORY_KB'] = (int) $params['memorylimit'] * 1024;
        }
        $limits = Environments::limits($this->c, $env, $problem);
        Metrics::inc('jobe');
        $runner = new Runner($this->c);
        try {
            $cr = $runner->compile($env, $spec['sourcecode']);
        } catch (HttpError $e) {
            if ($e->status === 503) {
                return [200, ['run_id' => null, 'outcome' => 21, 'cmpinfo' => '', 'stdout' => '', 'stderr' => ''], ['Retry-After' => '1']];
            }
            throw $e;
        }
        if (!$cr['ok']) {
            return [200, ['run_id' => null, 'outcome' => $cr['internal'] ? 20 : 11, 'cmpinfo' => $cr['raw'], 'stdout' => '', 'stderr' => ''], []];
        }
        try {
            $r = $runner->run((string) $cr['binary'], is_string($spec['input'] ?? null) ? $spec['input'] : '', $limits);
        } catch (HttpError $e) {
            if ($e->status === 503) {
                return [200, ['run_id' => null, 'outcome' => 21, 'cmpinfo' => '', 'stdout' => '', 'stderr' => ''], ['Retry-After' => '1']];
            }
            throw $e;
        }
        $runner->release();
        return [200, [
            'run_id' => null,
            'outcome' => Verdict::jobeOutcome($r['verdict']),
            'cmpinfo' => '',
            'stdout' => $r['stdout'],
            'stderr' => $r['stderr'],
        ], []];
    }
}
