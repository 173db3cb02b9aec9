'use strict';
// Every domain's service, built once per worker from the infrastructure (db, mc,
// sessions, ...) and handed to the routers of src/routes.js as one `deps` object.
// Background refreshes (LTI grades and roster, SEB, lock-down, announcements)
// start here, and the lock-down's sign-in hooks are registered on the sessions.
const { createAccountsService } = require('./accounts/service');
const { createHomeService } = require('./home/service');
const { createCodebookService } = require('./codebook/service');
const { createEditorService } = require('./editor/service');
const { createScratchpadService } = require('./scratchpad/service');
const { createPracticeService } = require('./practice/service');
const { createLtiService } = require('./lti/service');
const { createGradeSender } = require('./lti/grades');
const { createRoster } = require('./lti/roster');
const { createSeb } = require('./lti/seb');
const { createRegistration } = require('./lti/registration');
const { PUBLISH_SQL, createEventsService } = require('./events/service');
const { createPeopleService } = require('./people/service');
const { createProblemsService } = require('./problems/service');
const { createLiveService } = require('./live/service');
const { createLoginTracker } = require('./live/logins');
const { createGradingService } = require('./grading/service');
const { createRegradeService } = require('./grading/regrade');
const { createAdminService } = require('./admin/service');
const { createExamService } = require('./exam/service');
const { createPausesService } = require('./exam/pauses');
const { createAccommodationsService } = require('./exam/accommodations');
const { createProblemFilesService } = require('./problemfiles/service');
const { createToolsService } = require('./tools/service');
const { createSimilarityService } = require('./similarity/service');
const { createPlaybackService } = require('./playback/service');
const { createLockdownService } = require('./lockdown/service');
const { lockdownSection } = require('./lockdown/views');
const { createAnnouncementsService } = require('./announcements/service');
const { announcementsSection } = require('./announcements/views');

function createServices({ cfg, db, mc, telemetry, sessions, passwords, limiter, verifyPassword, log = console }) {
  const deps = {
    cfg, db, mc, telemetry, sessions, passwords,
    // students
    accounts: createAccountsService({ db, limiter, sessions, passwords, verifyPassword, log }),
    home: createHomeService({ db }),
    codebook: createCodebookService({ db }),
    editor: createEditorService({ db, telemetry, maxCodeBytes: cfg.maxCodeBytes, lateGraceS: cfg.lateSaveGraceS }),
    scratchpad: createScratchpadService({ db }),
    practice: createPracticeService({ db }),
    lti: createLtiService({ db, secret: cfg.sessionSecret, log, launchTtlS: cfg.lti.launchTtlS, publishSql: PUBLISH_SQL }),
    // staff
    people: createPeopleService({ db, sessions, passwords }),
    problems: createProblemsService({ db, engineUrl: cfg.engineUrl }),
    events: createEventsService({ db }),
    live: createLiveService({ db }),
    logins: createLoginTracker({ db, log }),
    grading: createGradingService({ db }),
    regrade: createRegradeService({ db, engineUrl: cfg.engineUrl }),
    admin: createAdminService({ db, cfg }),
    exam: createExamService({ db }),
    pauses: createPausesService({ db }),
    accommodations: createAccommodationsService({ db }),
    problemFiles: createProblemFilesService({ db }),
    // exam tools
    tools: createToolsService({ db }),
    similarity: createSimilarityService({ db, log, ...cfg.tools.similarity }),
    playback: createPlaybackService({ db }),
  };
  deps.ltiGrades = createGradeSender({ db, lti: deps.lti, log, ...cfg.lti.grades });
  deps.ltiGrades.start();
  deps.ltiRoster = createRoster({ lti: deps.lti });
  deps.ltiRoster.start({ ...cfg.lti.roster, log });
  deps.ltiRegistration = createRegistration({ db, linkTtlS: cfg.lti.registrationLinkTtlS });
  deps.seb = createSeb({ db, refreshMs: cfg.seb.refreshMs, log });
  deps.seb.start();

  const lockdown = createLockdownService({ db, mc, sessions, ttl: cfg.sessionTtl, log, refreshMs: cfg.tools.lockdownRefreshMs });
  lockdown.start();
  sessions.onCreate('before', lockdown.beforeSignIn);
  sessions.onCreate('after', lockdown.afterSignIn);
  const announcements = createAnnouncementsService({ db, log, ...cfg.tools.announcements });
  announcements.start();
  deps.lockdown = lockdown;
  deps.announcements = announcements;
  // the sections of an event's exam-tools page (tools/views.js)
  deps.toolSections = [
    async (req, event) => announcementsSection(req, { event, d: await announcements.forStaff(event.id) }),
    async (req, event) => lockdownSection(req, { event, s: await lockdown.settings(event.id), log: await lockdown.auditLog(event.id, { limit: 200 }) }),
  ];
  return deps;
}

module.exports = { createServices };
