'use strict';
// The webapp's dependency rules, checked by `make check` (tests/static.sh deps).
// A domain is a folder of src/ (accounts, exam, people, ...); src/lib and
// src/shared are the helpers every domain may use, so they must not use a domain
// back. Paths are relative to webapp/.
const HELPERS = '^src/(lib|shared)/';
const STUDENT = '^src/(editor|exam|home|practice|codebook|scratchpad|playback)/';
// staff-only code (the staff side's domains that students never reach)
const STAFF = '^src/(staff|people|problems|problemfiles|events|live|admin|similarity|tools)/';

module.exports = {
  forbidden: [
    {
      name: 'helpers-import-no-domain',
      comment: 'src/lib and src/shared know no domain: move the code into the domain, or pass it in.',
      severity: 'error',
      from: { path: HELPERS },
      to: { path: '^src/', pathNot: [HELPERS, '^src/config\\.js$'] },
    },
    {
      name: 'no-other-domains-routes',
      comment: "A domain never imports another domain's routes.js: every mount is in the route table.",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/routes\\.js$', pathNot: '^src/$1/' },
    },
    {
      name: 'students-import-no-staff',
      comment: 'Student code never imports staff code; shared helpers live in src/lib.',
      severity: 'error',
      from: { path: STUDENT },
      to: { path: STAFF },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/lib/public/' },
    moduleSystems: ['cjs'],
  },
};
