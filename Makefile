# The platform on one host. Everything goes through bin/prutor; see README.md.
.DEFAULT_GOAL := help
PRUTOR := bin/prutor

.PHONY: help up down restart status logs db health env check test containers-test load-data bench capacity bench-engine chaos backup restore standby failover archive archive-import

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

up: ## install what is missing, start every service, wait until healthy
	@$(PRUTOR) up

down: ## stop everything `make up` started
	@$(PRUTOR) down

restart: ## down, then up
	@$(PRUTOR) down && $(PRUTOR) up

status: ## each component up/down with its address
	@$(PRUTOR) status

logs: ## follow every log under var/log
	@$(PRUTOR) logs

db: ## MariaDB shell on the app database (as the app user)
	@$(PRUTOR) db

health: ## GET /healthz through HAProxy
	@$(PRUTOR) health

env: ## print the environment the services get
	@$(PRUTOR) env

check: ## static checks only: compose config, hadolint, haproxy -c, apache2 -t, docker stack config, helm lint + template, promtool, webapp dependency rules
	@$(PRUTOR) check

test: ## bring the stack up, then static checks, rdb tests, every folder's test.sh, smoke test, containers test
	@$(PRUTOR) test

containers-test: ## build and run the compose stack with Podman, then smoke, e2e, hostile and JMeter against it
	@bash containers/test.sh

# Load runs against the running stack (jmeter-plans/README.md). The variables are
# passed through the environment: PLAN USERS RAMPUP ITERATIONS THINK ENGINE_SHARE.
load-data: ## create USERS load-test students with a published exam (REMOVE=1 deletes them)
	@$(PRUTOR) run jmeter-plans/load-data.sh $(if $(REMOVE),--remove,)

bench: ## one JMeter run (PLAN=webapp|engine|combined USERS=... RAMPUP ITERATIONS THINK): the thesis' table
	@$(PRUTOR) run jmeter-plans/bench.sh

capacity: ## at the thesis' arrival rate (21 logins/s, 5 iterations): raise the users until a threshold is crossed (PLAN=...)
	@$(PRUTOR) run jmeter-plans/capacity.sh

bench-engine: ## the gcc floor and the engine through HAProxy (fresh and cached, concurrency 1 and 2) as ratios
	@SECONDS_PER_STEP=$(or $(SECONDS),10) $(PRUTOR) run engine/bench/bench_engine.py  # not SECONDS itself: bash (bin/prutor) counts it up

chaos: ## USERS students (300) work while each component is killed/restarted in turn; per-fault table (tests/chaos)
	@$(PRUTOR) run tests/chaos/run.sh

backup: ## a full backup now (MariaDB + MongoDB, encrypted into BACKUP_DIR); the binlog ships all the time (backup/README.md)
	@$(PRUTOR) backup

restore: ## restore MariaDB from the backups: the last full, then the binlog up to AT="YYYY-MM-DD HH:MM:SS" (UTC; default: the last second)
	@$(PRUTOR) restore $(if $(AT),--at "$(AT)",)

standby: ## start a semi-synchronous standby MariaDB (cloned from the primary); `bin/prutor standby status|down`
	@$(PRUTOR) standby up

failover: ## fence the primary, promote the standby in its place (same address), print the time it took
	@$(PRUTOR) failover

archive: ## one event as a zip (CSV, JSON, source files, checksums) readable without the platform: EVENT=id [OUT=file.zip]
	@$(PRUTOR) archive export "$(EVENT)" "$(or $(OUT),event-$(EVENT).zip)"

archive-import: ## put an archived event back (it must not exist; its users must): FILE=event-N.zip
	@$(PRUTOR) archive import "$(FILE)"
