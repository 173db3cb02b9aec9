'use strict';
// The route table: every domain router, where it is mounted, who may reach it
// (checked on the server), and the navigation entries. Order matters: Express
// tries the mounts top to bottom. Each router is its domain's routes.js (HTTP
// only), given the services of src/services.js.
const { sameOriginOnly, requireRole } = require('./shared/auth');
const { addNavItem } = require('./shared/nav');
const { lockdownMiddleware } = require('./lockdown/middleware');
const announcementRoutes = require('./announcements/routes');

const STAFF = ['instructor', 'admin'];

addNavItem({ href: '/home', label: 'Home', order: 10 });
addNavItem({ href: '/codebook', label: 'Codebook', order: 20 });
addNavItem({ href: '/practice', label: 'Practice', order: 30 });
addNavItem({ href: '/grading/mine', label: 'Marks', roles: ['student'], order: 35 });
addNavItem({ href: '/scratchpad', label: 'Scratchpad', order: 40 });
addNavItem({ href: '/people', label: 'People', roles: STAFF, order: 50 });
addNavItem({ href: '/problems', label: 'Problems', roles: STAFF, order: 60 });
addNavItem({ href: '/events', label: 'Events', roles: STAFF, order: 70 });
addNavItem({ href: '/grading', label: 'Grading', roles: ['ta', ...STAFF], order: 80 });
addNavItem({ href: '/admin', label: 'Admin', roles: ['admin'], order: 90 });

// Before the body parsers and the session: answered without memcached.
function mountBeforeSession(app, deps) {
  app.use('/healthz', require('./health/routes')(deps));
  // polled by every open exam editor
  app.use('/exam/timing', require('./exam/timing').timingRoutes(deps));
}

// After the session, CSRF and Safe Exam Browser middleware.
function mountRoutes(app, deps, { signinGate }) {
  const { cfg, sessions, lockdown } = deps;
  // Lab lock-down (src/lockdown): checked before every other router.
  app.use(lockdownMiddleware({ lockdown, sessions, secret: cfg.sessionSecret }));

  // Exam tools: similarity, playback, lock-down, announcements (src/tools/README.md)
  app.use('/tools/playback', requireRole(...STAFF, 'ta'), require('./playback/routes')(deps));
  app.use('/announcements', announcementRoutes.studentRoutes(deps));
  app.use('/tools/events/:eventId/announcements', requireRole(...STAFF), announcementRoutes.staffRoutes(deps));
  app.use('/tools/events/:eventId/lockdown', requireRole(...STAFF), require('./lockdown/routes')(deps));
  app.use('/tools/events/:eventId/similarity', requireRole(...STAFF), require('./similarity/routes')(deps));
  app.use('/tools/events/:eventId', requireRole(...STAFF), require('./tools/routes')(deps));

  // Staff side (docs/staff.md). The sign-in tracker for users.last_login_at
  // watches POST /accounts/login, so it comes before the accounts router.
  app.use('/accounts', deps.logins.middleware);
  app.use('/people', requireRole(...STAFF), require('./people/routes')(deps));
  app.use('/problems/:id/files', requireRole(...STAFF), require('./problemfiles/routes')(deps));
  app.use('/problems', requireRole(...STAFF), require('./problems/routes')(deps));
  app.use('/events', requireRole(...STAFF), require('./events/routes')(deps));
  app.use('/live', requireRole(...STAFF, 'ta'), require('./live/routes')(deps));
  app.use('/grading', require('./grading/routes')(deps)); // roles per route: /grading/mine is the students'
  app.use('/admin', requireRole('admin'), require('./admin/routes')(deps));
  app.use('/exam', require('./exam/routes')(deps)); // roles per route: students and staff

  // Students (and every role's own account)
  app.get('/', (req, res) => res.redirect(302, req.session ? '/home' : '/accounts/login'));
  app.post('/accounts/login', sameOriginOnly, signinGate.middleware);
  app.use('/accounts', require('./accounts/routes')(deps));
  app.use('/home', require('./home/routes')(deps));
  app.use('/codebook', require('./codebook/routes')(deps));
  app.use('/editor', require('./editor/routes')(deps));
  app.use('/scratchpad', require('./scratchpad/routes')(deps));
  app.use('/practice', require('./practice/routes')(deps));
  // the LMS: login and launch are cross-site posts (exempt from CSRF in app.js)
  app.use('/lti', require('./lti/routes')(deps));
}

module.exports = { mountBeforeSession, mountRoutes };
