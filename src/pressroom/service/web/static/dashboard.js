// pressroom dashboard: small progressive enhancements; every form works without this file.
(function () {
  "use strict";
  // Focus the error summary so screen readers announce it (GOV.UK pattern).
  var summary = document.querySelector("[data-focus]");
  if (summary) { summary.focus(); }

  // Copy buttons for a once-shown key.
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.getElementById(button.getAttribute("data-copy"));
      if (!field) { return; }
      field.select();
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard) { navigator.clipboard.writeText(field.value).then(done, done); }
      else { document.execCommand("copy"); done(); }
    });
  });

  // Browser upload: ask the dashboard for a presigned URL, PUT the bytes straight to it
  // with a progress bar, then reload the library.
  var form = document.getElementById("upload-form");
  if (form) {
    form.addEventListener("submit", function (event) {
      var input = document.getElementById("upload-file");
      if (!input || !input.files || !input.files.length) { return; }
      event.preventDefault();
      var file = input.files[0];
      var bar = document.getElementById("upload-progress");
      var status = document.getElementById("upload-status");
      var data = new FormData(form);
      data.delete("file");
      data.append("filename", file.name);
      data.append("content_type", file.type || "application/octet-stream");
      status.textContent = "Preparing upload of " + file.name + "…";
      fetch(form.getAttribute("data-presign"), {
        method: "POST", body: data, credentials: "same-origin", headers: { "Accept": "application/json" }
      })
        .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
        .then(function (res) {
          if (!res.ok) { status.textContent = res.body.error.message; return; }
          var xhr = new XMLHttpRequest();
          xhr.open("PUT", res.body.uploadUrl);
          xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
          bar.hidden = false;
          xhr.upload.onprogress = function (e) {
            if (e.lengthComputable) { bar.value = Math.round((e.loaded / e.total) * 100); }
          };
          xhr.onload = function () {
            if (xhr.status >= 200 && xhr.status < 300) {
              bar.value = 100;
              status.textContent = "Uploaded " + file.name + ": processing.";
              window.location.reload();
            } else { status.textContent = "The upload failed (" + xhr.status + ")."; }
          };
          xhr.onerror = function () { status.textContent = "The upload failed: network error."; };
          xhr.send(file);
        })
        .catch(function () { status.textContent = "The upload could not start."; });
    });
  }

  // Pages with files still processing refresh themselves until they settle.
  if (document.querySelector("[data-refresh]")) {
    window.setTimeout(function () { window.location.reload(); }, 2000);
  }
})();
