'use strict';
// Issue 16, the tools an instructor needs around a proctored exam, mounted from one
// line in app.js (after the session and CSRF middleware):
//   /tools/events/:eventId            instructor, admin: similarity per question,
//                                     playback links (similarity/, playback/)
const { requireRole } = require('../shared/auth');
const { createToolsService } = require('./service');
const { createSimilarityService } = require('../similarity/service');

function mountTools(app, deps) {
  const { db, cfg, log = console } = deps;
  const t = {
    ...deps,
    tools: createToolsService({ db }),
    similarity: createSimilarityService({ db, log, ...cfg.tools.similarity }),
    toolSections: [],
  };
  app.use('/tools/events/:eventId', requireRole('instructor', 'admin'), require('./routes')(t));
  return t;
}

module.exports = { mountTools };
