<?php

declare(strict_types=1);

namespace Prutor\Engine;

/**
 * PDO with real prepared statements over one persistent connection per worker.
 * Counts the statements it runs (the query diet is tested through this count).
 */
final class Db
{
    private static ?\PDO $pdo = null;
    public static int $queries = 0;

    public static function pdo(Config $c): \PDO
    {
        if (self::$pdo === null) {
            $dsn = sprintf('mysql:host=%s;port=%d;dbname=%s;charset=utf8mb4', $c->dbHost, $c->dbPort, $c->dbName);
            self::$pdo = new \PDO($dsn, $c->dbUser, $c->dbPassword, [
                \PDO::ATTR_PERSISTENT => true,
                \PDO::ATTR_EMULATE_PREPARES => false,
                \PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION,
                \PDO::ATTR_DEFAULT_FETCH_MODE => \PDO::FETCH_ASSOC,
                \PDO::ATTR_TIMEOUT => 3,
                \PDO::MYSQL_ATTR_INIT_COMMAND => "SET time_zone = '+00:00'",
            ]);
        }
        return self::$pdo;
    }

    /** @param list<mixed> $params */
    public static function run(Config $c, string $sql, array $params = []): \PDOStatement
    {
        $st = self::pdo($c)->prepare($sql);
        $st->execute($params);
        self::$queries++;
        return $st;
    }

    public static function lastId(Config $c): int
    {
        return (int) self::pdo($c)->lastInsertId();
    }
}
