// The rules desk's little script: click a card of the picture to find the moves that name it, and read a
// chosen file into the load form. The pages work without it (every change is a plain form).
"use strict";

function placeOf(group) {
  // A card of the picture is a <g> whose <title> begins with its place: "alice.2: ...", "bob.hand: ...".
  const title = group.querySelector(":scope > title");
  const match = title && /^([A-Za-z_][A-Za-z0-9_]*\.(?:[0-9]+|hand)):/.exec(title.textContent);
  return match ? match[1] : null;
}

function selectPlace(place) {
  document.querySelectorAll("button.move").forEach((button) => {
    const hit = place !== null && button.dataset.places.split(" ").includes(place);
    button.classList.toggle("hit", hit);
    if (hit) {
      button.closest("details").open = true;
    }
  });
  document.querySelectorAll("#knows tr[data-place]").forEach((row) => {
    row.classList.toggle("hit", row.dataset.place === place);
  });
  const shown = document.getElementById("selected");
  if (shown) {
    shown.textContent = place === null ? "" : "(now: " + place + ")";
  }
}

function wireCards() {
  let chosen = null;
  document.querySelectorAll("#picture svg g").forEach((group) => {
    const place = placeOf(group);
    if (place === null) {
      return;
    }
    group.classList.add("clickable");
    group.dataset.place = place;
    group.addEventListener("click", () => {
      chosen = chosen === place ? null : place;
      document.querySelectorAll("#picture svg g.chosen").forEach((g) => g.classList.remove("chosen"));
      if (chosen !== null) {
        group.classList.add("chosen");
      }
      selectPlace(chosen);
    });
  });
}

function wireFile() {
  const input = document.getElementById("l-file");
  if (!input) {
    return;
  }
  input.addEventListener("change", () => {
    const file = input.files[0];
    if (!file) {
      return;
    }
    file.text().then((text) => {
      document.getElementById("l-text").value = text;
      document.getElementById("l-name").value = file.name;
    });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  wireCards();
  wireFile();
});
