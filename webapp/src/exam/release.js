'use strict';
// The release of marks, in one place: an event's automatic scores, marks and
// feedback reach its students (pages, codebook) and the LMS only once staff have
// released them (events.grades_released_at set; exam/service.js release()).
// `e` is the alias of `events` in the caller's query.
const marksReleased = (e) => `${e}.grades_released_at IS NOT NULL`;

module.exports = { marksReleased };
