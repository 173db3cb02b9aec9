// Reloads a page whose job is still running (element with data-refresh-ms).
(function () {
  var el = document.querySelector('[data-refresh-ms]');
  if (el) setTimeout(function () { location.reload(); }, Number(el.getAttribute('data-refresh-ms')) || 2000);
}());
