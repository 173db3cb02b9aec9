'use strict';
// The staff side (issue 5) in one call from app.js: services, navigation entries,
// and routers, each behind its role check on the server:
//   /people, /problems, /events   instructor, admin
//   /live                         instructor, admin, ta
//   /grading                      ta, instructor, admin (/grading/mine: students)
//   /admin                        admin
// Call it after the session and CSRF middleware and before the accounts router
// (the sign-in tracker for users.last_login_at watches POST /accounts/login).
const { requireRole } = require('../shared/auth');
const { addNavItem } = require('../shared/nav');
const { createPeopleService } = require('../people/service');
const { createProblemsService } = require('../problems/service');
const { createEventsService } = require('../events/service');
const { createLiveService } = require('../live/service');
const { createLoginTracker } = require('../live/logins');
const { createGradingService } = require('../grading/service');
const { createRegradeService } = require('../grading/regrade');
const { createAdminService } = require('../admin/service');
const { createExamService } = require('../exam/service');

addNavItem({ href: '/grading/mine', label: 'Marks', roles: ['student'], order: 35 });
addNavItem({ href: '/people', label: 'People', roles: ['instructor', 'admin'], order: 50 });
addNavItem({ href: '/problems', label: 'Problems', roles: ['instructor', 'admin'], order: 60 });
addNavItem({ href: '/events', label: 'Events', roles: ['instructor', 'admin'], order: 70 });
addNavItem({ href: '/grading', label: 'Grading', roles: ['ta', 'instructor', 'admin'], order: 80 });
addNavItem({ href: '/admin', label: 'Admin', roles: ['admin'], order: 90 });

function mountStaff(app, deps) {
  const { db, cfg, log = console } = deps;
  const staff = {
    ...deps,
    people: createPeopleService({ db, sessions: deps.sessions, passwords: deps.passwords }),
    problems: createProblemsService({ db, engineUrl: cfg.engineUrl }),
    events: createEventsService({ db }),
    live: createLiveService({ db }),
    grading: createGradingService({ db }),
    regrade: createRegradeService({ db, engineUrl: cfg.engineUrl }),
    admin: createAdminService({ db, cfg }),
    exam: createExamService({ db }),
  };
  const logins = createLoginTracker({ db, log });
  deps.staff = staff;
  deps.logins = logins;

  app.use('/accounts', logins.middleware);
  app.use('/people', requireRole('instructor', 'admin'), require('../people/routes')(staff));
  app.use('/problems', requireRole('instructor', 'admin'), require('../problems/routes')(staff));
  app.use('/events', requireRole('instructor', 'admin'), require('../events/routes')(staff));
  app.use('/live', requireRole('instructor', 'admin', 'ta'), require('../live/routes')(staff));
  app.use('/grading', require('../grading/routes')(staff));
  app.use('/admin', requireRole('admin'), require('../admin/routes')(staff));
  app.use('/exam', require('../exam/routes')(staff));
  return staff;
}

module.exports = { mountStaff };
