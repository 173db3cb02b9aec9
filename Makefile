# The platform on one host. Everything goes through bin/prutor; see README.md.
.DEFAULT_GOAL := help
PRUTOR := bin/prutor

.PHONY: help up down restart status logs db health env check test

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

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

check: ## static checks only: compose config, hadolint, haproxy -c, apache2 -t
	@$(PRUTOR) check

test: ## bring the stack up, then static checks, rdb tests, every folder's test.sh, smoke test
	@$(PRUTOR) test
