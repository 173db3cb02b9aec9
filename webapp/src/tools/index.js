'use strict';
// Issue 16, the tools an instructor needs around a proctored exam, mounted from one
// line in app.js (after the session and CSRF middleware):
//   /tools/events/:eventId            instructor, admin: similarity per question,
//                                     playback links (similarity/, playback/)
//   /tools/playback/:assignmentId     instructor, admin, ta: timeline, slider, diffs
const { requireRole } = require('../shared/auth');
const { createToolsService } = require('./service');
const { createSimilarityService } = require('../similarity/service');
const { createPlaybackService } = require('../playback/service');

function mountTools(app, deps) {
  const { db, cfg, log = console } = deps;
  const t = {
    ...deps,
    tools: createToolsService({ db }),
    similarity: createSimilarityService({ db, log, ...cfg.tools.similarity }),
    playback: createPlaybackService({ db }),
    toolSections: [],
  };
  app.use('/tools/playback', requireRole('instructor', 'admin', 'ta'), require('../playback/routes')(t));
  app.use('/tools/events/:eventId', requireRole('instructor', 'admin'), require('./routes')(t));
  return t;
}

module.exports = { mountTools };
