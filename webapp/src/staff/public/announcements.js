// Announcements on a student's exam page (issue 16), a piece apart from the editor:
// polls /announcements/feed (every poll_ms the server asks for, with jitter),
// keeps every announcement of the running event on the page (newest first, the
// unseen ones marked), shows staff's answers and, when the event allows it, a form
// to ask a question. A session ended by a sign-in elsewhere is said at once.
(function () {
  'use strict';
  var ed = document.querySelector('#ed[data-kind="event"]');
  if (!ed) return;
  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || '';
  var box = document.createElement('div');
  box.id = 'announcements';
  box.className = 'banner info';
  box.setAttribute('role', 'status');
  box.setAttribute('aria-live', 'polite');
  box.hidden = true;
  var head = ed.querySelector('.ed-head');
  ed.insertBefore(box, head ? head.nextSibling : ed.firstChild);
  var SEEN = 'prutor.announcements.seen';
  var seen = Number(localStorage.getItem(SEEN) || 0);
  var pollMs = 10000;
  var stopped = false;
  var shownKey = '';

  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function hhmm(t) { return new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }); }

  function render(feed) {
    var key = JSON.stringify(feed.events);
    if (key === shownKey) return;
    shownKey = key;
    box.textContent = '';
    var any = false;
    var newest = seen;
    feed.events.forEach(function (ev) {
      var items = ev.announcements.slice().reverse();
      if (!items.length && !ev.answers.length && !ev.questions) return;
      any = true;
      var ul = el('ul', 'announcement-items');
      items.forEach(function (a) {
        var li = el('li', a.id > seen ? 'announcement new' : 'announcement');
        li.setAttribute('data-id', a.id);
        li.appendChild(el('strong', '', (a.id > seen ? 'New · ' : '') + hhmm(a.at) + ' '));
        li.appendChild(document.createTextNode(a.message));
        ul.appendChild(li);
        if (a.id > newest) newest = a.id;
      });
      ev.answers.forEach(function (q) {
        var li = el('li', 'answer');
        li.appendChild(el('strong', '', 'Answer to your question “' + q.question + '”: '));
        li.appendChild(document.createTextNode(q.answer));
        ul.appendChild(li);
      });
      if (items.length || ev.answers.length) {
        box.appendChild(el('strong', '', 'Announcements · ' + ev.title));
        box.appendChild(ul);
      }
      if (ev.questions) box.appendChild(askForm(ev.id));
    });
    box.hidden = !any;
    if (newest > seen) { seen = newest; localStorage.setItem(SEEN, String(seen)); }
  }

  function askForm(eventId) {
    var f = el('form', 'ask');
    var input = el('input');
    input.name = 'question';
    input.maxLength = 1000;
    input.placeholder = 'Ask the staff a question';
    input.setAttribute('aria-label', 'Question to the staff');
    var b = el('button', 'btn small', 'Ask');
    b.type = 'submit';
    var note = el('span', 'muted small');
    f.appendChild(input); f.appendChild(b); f.appendChild(note);
    f.addEventListener('submit', function (e) {
      e.preventDefault();
      fetch('/announcements/questions', {
        method: 'POST', credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ event_id: eventId, question: input.value }),
      }).then(function (r) { return r.json().then(function (j) { note.textContent = r.ok ? ' Sent; the answer will appear here.' : ' ' + (j.error || 'Not sent.'); if (r.ok) input.value = ''; }); })
        .catch(function () { note.textContent = ' Not sent: no connection.'; });
    });
    return f;
  }

  function ended(message) {
    stopped = true;
    box.hidden = false;
    box.className = 'banner error';
    box.id = 'session-ended';
    box.textContent = message;
  }

  function poll() {
    if (stopped) return;
    fetch('/announcements/feed', { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        return r.json().then(function (j) {
          if (r.status === 401) return ended(j.error || 'Your session has ended. Sign in again.');
          if (r.ok) { if (j.poll_ms) pollMs = j.poll_ms; render(j); }
        });
      })
      .catch(function () { /* offline for a moment: the next poll retries */ })
      .then(function () { if (!stopped) setTimeout(poll, pollMs * (0.8 + Math.random() * 0.4)); });
  }
  document.addEventListener('visibilitychange', function () { if (document.visibilityState === 'visible' && !stopped) poll(); });
  poll();
}());
