<?php

declare(strict_types=1);

require dirname(__DIR__) . '/src/autoload.php';

(new Prutor\Engine\Api(Prutor\Engine\Config::get()))->handle($_SERVER);
