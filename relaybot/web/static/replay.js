// relaybot web: step through a game's positions without reloading the page.
// The page carries one picture (#board-img), buttons (data-step), and the record's
// ply buttons (data-ply); the picture of ply N is /games/<id>/board/N?side=S.
(function () {
  "use strict";
  var figure = document.getElementById("replay");
  if (!figure) { return; }
  var img = document.getElementById("board-img");
  var caption = document.getElementById("board-caption");
  var frames = JSON.parse(document.getElementById("frames").textContent);
  var base = figure.getAttribute("data-src");
  var side = figure.getAttribute("data-side");
  var last = frames.length - 1;
  var current = last;
  var plies = document.querySelectorAll("button[data-ply]");
  var details = document.getElementById("board-text");
  var text = details ? details.querySelector("pre") : null;
  var textPly = last;

  // the board as text (the picture's long description), fetched for the position shown
  // when the reader opens it
  function showText() {
    if (!details || !details.open || textPly === current) { return; }
    var wanted = current;
    fetch(base + wanted + "?side=" + side + "&form=text").then(function (r) {
      return r.ok ? r.text() : Promise.reject(r.status);
    }).then(function (body) {
      if (wanted === current) { text.textContent = body; textPly = wanted; }
    }).catch(function () {});
  }
  if (details) { details.addEventListener("toggle", showText); }

  function show(n) {
    n = Math.max(0, Math.min(last, n));
    current = n;
    img.src = base + n + "?side=" + side;
    img.alt = frames[n].alt;
    img.setAttribute("data-ply", String(n));
    caption.textContent = frames[n].alt;
    for (var i = 0; i < plies.length; i++) {
      var on = plies[i].getAttribute("data-ply") === String(n);
      plies[i].classList.toggle("current", on);
      if (on) { plies[i].setAttribute("aria-current", "step"); }
      else { plies[i].removeAttribute("aria-current"); }
    }
    figure.setAttribute("data-ply", String(n));
    showText();
  }

  var steps = {first: function () { return 0; }, prev: function () { return current - 1; },
               next: function () { return current + 1; }, last: function () { return last; }};
  figure.addEventListener("click", function (e) {
    var button = e.target.closest("button[data-step]");
    if (button) { show(steps[button.getAttribute("data-step")]()); }
  });
  document.addEventListener("click", function (e) {
    var button = e.target.closest("button[data-ply]");
    if (button) { show(parseInt(button.getAttribute("data-ply"), 10)); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var tag = (e.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select") { return; }
    var keys = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"};
    if (keys[e.key]) {
      e.preventDefault();
      show(steps[keys[e.key]]());
    }
  });
  figure.classList.add("scripted");
  show(last);
})();
