'use strict';
// Request-scoped context (AsyncLocalStorage): counts the MySQL statements each
// request sends, so tests can hold the hot routes to their query budget.
const { AsyncLocalStorage } = require('node:async_hooks');

const als = new AsyncLocalStorage();

function contextMiddleware(req, res, next) {
  als.run({ queries: 0 }, next);
}

function current() { return als.getStore(); }

// Runs fn outside any request's context: timers it starts (a worker's background
// polls) would otherwise count their statements against the request that started them.
function outsideRequest(fn) { return als.exit(fn); }

module.exports = { contextMiddleware, current, outsideRequest };
