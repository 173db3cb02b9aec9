'use strict';
// Issue 16, the tools an instructor needs around a proctored exam, mounted from one
// line in app.js (after the session and CSRF middleware):
//   /tools/events/:eventId            instructor, admin: similarity per question,
//                                     playback links (similarity/, playback/)
//   /tools/playback/:assignmentId     instructor, admin, ta: timeline, slider, diffs of what
//                                     they may grade (grading/service.js)
//   /tools/events/:eventId/lockdown   instructor, admin: address ranges, one session per
//                                     student, audit log (lockdown/); its middleware runs
//                                     before every other router
//   /tools/events/:eventId/announcements  instructor, admin: announce, answer questions
//   /announcements/feed, /questions   students: what the exam page shows (announcements/)
const { requireRole } = require('../shared/auth');
const { createToolsService } = require('./service');
const { createSimilarityService } = require('../similarity/service');
const { createPlaybackService } = require('../playback/service');
const { createLockdownService } = require('../lockdown/service');
const { lockdownMiddleware } = require('../lockdown/middleware');
const { lockdownSection } = require('../lockdown/views');
const { createAnnouncementsService } = require('../announcements/service');
const announcementRoutes = require('../announcements/routes');
const { announcementsSection } = require('../announcements/views');

function mountTools(app, deps) {
  const { db, mc, cfg, sessions, log = console } = deps;
  const lockdown = createLockdownService({ db, mc, sessions, ttl: cfg.sessionTtl, log, refreshMs: cfg.tools.lockdownRefreshMs });
  lockdown.start();
  sessions.onCreate('before', lockdown.beforeSignIn);
  sessions.onCreate('after', lockdown.afterSignIn);
  app.use(lockdownMiddleware({ lockdown, sessions, secret: cfg.sessionSecret }));
  const announcements = createAnnouncementsService({ db, log, ...cfg.tools.announcements });
  announcements.start();
  const t = {
    ...deps,
    announcements,
    tools: createToolsService({ db }),
    similarity: createSimilarityService({ db, log, ...cfg.tools.similarity }),
    playback: createPlaybackService({ db }),
    lockdown,
    toolSections: [
      async (req, event) => announcementsSection(req, { event, d: await announcements.forStaff(event.id) }),
      async (req, event) => lockdownSection(req, { event, s: await lockdown.settings(event.id), log: await lockdown.auditLog(event.id, { limit: 200 }) }),
    ],
  };
  deps.lockdown = lockdown;
  app.use('/tools/playback', requireRole('instructor', 'admin', 'ta'), require('../playback/routes')(t));
  app.use('/announcements', announcementRoutes.studentRoutes(t));
  app.use('/tools/events/:eventId/announcements', requireRole('instructor', 'admin'), announcementRoutes.staffRoutes(t));
  app.use('/tools/events/:eventId/lockdown', requireRole('instructor', 'admin'), require('../lockdown/routes')(t));
  app.use('/tools/events/:eventId/similarity', requireRole('instructor', 'admin'), require('../similarity/routes')(t));
  app.use('/tools/events/:eventId', requireRole('instructor', 'admin'), require('./routes')(t));
  return t;
}

module.exports = { mountTools };
