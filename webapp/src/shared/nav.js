'use strict';
// The navigation bar is a registry: each domain registers its entries with the
// roles that see them. The staff side adds its own (problems, events, grading,
// admin, people) from its router modules without touching the layout.
const items = [];

function addNavItem({ href, label, roles, order = 100 }) {
  items.push({ href, label, roles: roles || null, order });
  items.sort((a, b) => a.order - b.order);
}

function navFor(role) {
  return items.filter((i) => !i.roles || i.roles.includes(role));
}

module.exports = { addNavItem, navFor };
