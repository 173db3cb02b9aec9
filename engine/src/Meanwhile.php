<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * Work of a request that does not need the sandbox's answer (storing the code it is about
 * to run), done while the sandbox compiles instead of before the launch: a compile keeps
 * one core busy for tens of milliseconds, and the durable INSERT needs the other for one.
 * It runs at most once, when first invoked: by the launch it was handed to, once the
 * launcher has started, or else by the request itself, which invokes it after the sandbox
 * in any case, so that it has run whichever way the job went.
 */
final class Meanwhile
{
    public function __construct(private ?\Closure $work)
    {
    }

    public function __invoke(): void
    {
        $work = $this->work;
        $this->work = null;
        if ($work !== null) {
            $work();
        }
    }
}
