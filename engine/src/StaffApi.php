<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Staff's check of code against a problem (POST /evaluate with problem_id): nothing is
 * stored. Instructors and admins see every case; a TA sees hidden cases as passed or
 * not only, as students do (a TA may grade an exam without knowing its hidden tests,
 * and must not learn those of exams still to come).
 */
final class StaffApi
{
    public function __construct(private readonly Config $c, private readonly Session $s, private readonly Input $in)
    {
    }

    /** @return array{0: int, 1: mixed, 2: array<string, string>} */
    public function evaluate(): array
    {
        if (!$this->s->isStaff()) {
            throw new HttpError(403, 'only staff may evaluate code against a problem directly');
        }
        $pid = $this->in->int('problem_id');
        $code = $this->in->str('code', $this->c->maxCodeBytes);
        $row = Db::run($this->c, 'SELECT p.id AS problem_id, 100 AS max_marks, p.env, p.time_limit_ms, p.memory_limit_kb, p.compare_mode, p.updated_at,
            ' . ProblemFiles::COUNT_SQL . ' FROM problems p WHERE p.id = ?', [$pid])->fetch();
        if (!$row) {
            throw new HttpError(404, 'no such problem');
        }
        $judge = new Judge($this->c, $this->s->isBackground());
        $showHidden = in_array($this->s->role(), ['admin', 'instructor'], true);
        $res = $judge->judge($row, $code, $judge->testCases($pid, (string) $row['updated_at']), $showHidden);
        unset($res['rows']);
        Telemetry::log($this->c, 'evaluate', ['user_id' => $this->s->userId(), 'problem_id' => $pid, 'staff' => true, 'verdict' => $res['verdict']]);
        return [200, $res + ['stored' => false], []];
    }
}
