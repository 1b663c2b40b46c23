// GKE Capacity & Triage: row filter, copy buttons, auto-refresh. Never writes HTML: cluster text
// stays text (textContent / attributes only), so nothing from the cluster can run as script.
"use strict";

function applyFilter(text) {
  var needle = text.trim().toLowerCase();
  document.querySelectorAll("tr.filterable").forEach(function (row) {
    var hit = !needle || row.textContent.toLowerCase().indexOf(needle) !== -1;
    row.classList.toggle("hidden", !hit);
  });
}

function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text);
  }
  var area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "hidden";
  document.body.appendChild(area);
  area.select();
  document.execCommand("copy");
  document.body.removeChild(area);
  return Promise.resolve();
}

function setupCopy() {
  document.querySelectorAll("button.copy").forEach(function (button) {
    button.addEventListener("click", function () {
      copyText(button.getAttribute("data-copy") || "").then(function () {
        button.textContent = "Copied";
        button.classList.add("done");
        setTimeout(function () { button.textContent = "Copy"; button.classList.remove("done"); }, 2000);
      }, function () { button.textContent = "Copy failed"; });
    });
  });
}

function setupFilter() {
  var input = document.getElementById("filter");
  if (!input) { return; }
  var saved = sessionStorage.getItem("mlwiki-filter") || "";
  input.value = saved;
  applyFilter(saved);
  input.addEventListener("input", function () {
    sessionStorage.setItem("mlwiki-filter", input.value);
    applyFilter(input.value);
  });
}

function setupAutoRefresh() {
  var box = document.getElementById("auto-refresh");
  var link = document.getElementById("refresh");
  if (!box || !link) { return; }
  var timer = null;
  function arm() {
    if (timer) { clearTimeout(timer); timer = null; }
    if (box.checked) { timer = setTimeout(function () { window.location.assign(link.href); }, 60000); }
  }
  box.checked = sessionStorage.getItem("mlwiki-auto") === "1";
  box.addEventListener("change", function () {
    sessionStorage.setItem("mlwiki-auto", box.checked ? "1" : "0");
    arm();
  });
  arm();
}

document.addEventListener("DOMContentLoaded", function () {
  setupFilter();
  setupCopy();
  setupAutoRefresh();
});
