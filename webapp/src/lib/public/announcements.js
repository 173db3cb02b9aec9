// Announcements on a student's exam page (issues 16 and 30), a piece apart from the
// editor: polls /announcements/feed (every poll_ms the server asks for, with
// jitter). Each announcement not yet acknowledged stays on top with a "Got it"
// button (POST /announcements/ack); the acknowledged ones fold into "Earlier".
// The server keeps who acknowledged what, so a student who was offline, or opens
// another tab, gets what they missed. Staff's answers and, when the event allows
// it, a form to ask a question. A session ended is said at once; polling goes on,
// so a sign-in again in the editor brings the notices back without a reload.
(function () {
  'use strict';
  var ed = document.querySelector('#ed[data-kind="event"]');
  if (!ed) return;
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = function () { return (csrfMeta || {}).content || ''; };
  var box = document.createElement('div');
  box.id = 'announcements';
  box.className = 'banner info';
  box.setAttribute('role', 'status');
  box.setAttribute('aria-live', 'polite');
  box.hidden = true;
  var head = ed.querySelector('.ed-head');
  ed.insertBefore(box, head ? head.nextSibling : ed.firstChild);
  var ended = document.createElement('div');
  ended.id = 'session-ended';
  ended.className = 'banner error';
  ended.setAttribute('role', 'alert');
  ended.hidden = true;
  ed.insertBefore(ended, box);
  var pollMs = 10000;
  var shownKey = '';
  var acked = {}; // ids acknowledged from this page (before the server's copy says so)
  var last = null;

  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  // 24-hour, as every other time on the exam pages
  function hhmm(t) { var d = new Date(t); return ('0' + d.getHours()).slice(-2) + ':' + ('0' + d.getMinutes()).slice(-2); }

  function ack(id, button) {
    button.disabled = true;
    fetch('/announcements/ack', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf() },
      body: JSON.stringify({ id: id }),
    }).then(function (r) {
      if (r.ok) { acked[id] = true; shownKey = ''; if (last) render(last); } else button.disabled = false;
    }).catch(function () { button.disabled = false; });
  }

  function item(a, fresh) {
    var li = el('li', fresh ? 'announcement new' : 'announcement');
    li.setAttribute('data-id', a.id);
    li.appendChild(el('strong', '', (fresh ? 'New · ' : '') + hhmm(a.at) + ' '));
    li.appendChild(document.createTextNode(a.message));
    if (fresh) {
      var b = el('button', 'btn small ack', 'Got it');
      b.type = 'button';
      b.addEventListener('click', function () { ack(a.id, b); });
      li.appendChild(document.createTextNode(' '));
      li.appendChild(b);
    }
    return li;
  }

  function render(feed) {
    last = feed;
    var key = JSON.stringify(feed.events) + JSON.stringify(acked);
    if (key === shownKey) return;
    shownKey = key;
    box.textContent = '';
    var any = false;
    feed.events.forEach(function (ev) {
      var items = ev.announcements.slice().reverse();
      if (!items.length && !ev.answers.length && !ev.questions) return;
      any = true;
      var fresh = items.filter(function (a) { return !a.acked && !acked[a.id]; });
      var earlier = items.filter(function (a) { return a.acked || acked[a.id]; });
      if (fresh.length || ev.answers.length) {
        box.appendChild(el('strong', '', 'Announcements · ' + ev.title));
        var ul = el('ul', 'announcement-items');
        fresh.forEach(function (a) { ul.appendChild(item(a, true)); });
        ev.answers.forEach(function (q) {
          var li = el('li', 'answer');
          li.appendChild(el('strong', '', 'Answer to your question “' + q.question + '”: '));
          li.appendChild(document.createTextNode(q.answer));
          ul.appendChild(li);
        });
        box.appendChild(ul);
      }
      if (earlier.length) {
        var d = el('details', 'earlier');
        d.appendChild(el('summary', '', 'Earlier announcements (' + earlier.length + ')'));
        var ol = el('ul', 'announcement-items');
        earlier.forEach(function (a) { ol.appendChild(item(a, false)); });
        d.appendChild(ol);
        box.appendChild(d);
      }
      if (ev.questions) box.appendChild(askForm(ev.id));
    });
    box.hidden = !any;
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
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf() },
        body: JSON.stringify({ event_id: eventId, question: input.value }),
      }).then(function (r) { return r.json().then(function (j) { note.textContent = r.ok ? ' Sent; the answer will appear here.' : ' ' + (j.error || 'Not sent.'); if (r.ok) input.value = ''; }); })
        .catch(function () { note.textContent = ' Not sent: no connection.'; });
    });
    return f;
  }

  function poll() {
    fetch('/announcements/feed', { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        return r.json().then(function (j) {
          if (r.status === 401) { ended.textContent = j.error || 'Your session has ended. Sign in again.'; ended.hidden = false; return; }
          if (r.ok) { ended.hidden = true; if (j.poll_ms) pollMs = j.poll_ms; render(j); }
        });
      })
      .catch(function () { /* offline for a moment: the next poll retries */ })
      .then(function () { setTimeout(poll, pollMs * (0.8 + Math.random() * 0.4)); });
  }
  document.addEventListener('visibilitychange', function () { if (document.visibilityState === 'visible') poll(); });
  poll();
}());
