/**
 * The small browser script behind every passkey button (served as `passkey.js`, script-src
 * 'self'): it asks our endpoint for options, runs the ceremony with SimpleWebAuthn's browser
 * bundle (global `SimpleWebAuthnBrowser`) and posts the result back. A button says what to do
 * with data attributes: `data-passkey` (signin | register), `data-options`, `data-verify`,
 * `data-csrf`, `data-status` (the element that shows the outcome) and, for register,
 * `data-name` (the input holding the passkey's name).
 */
export const PASSKEY_SCRIPT = `(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;
  function post(url, body) {
    return fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { return { ok: r.ok, body: j }; }); });
  }
  function wire(btn) {
    btn.addEventListener('click', async function () {
      var status = document.getElementById(btn.getAttribute('data-status'));
      var say = function (text) { if (status) status.textContent = text; };
      var csrf = btn.getAttribute('data-csrf');
      btn.disabled = true;
      try {
        if (!lib || !lib.browserSupportsWebAuthn()) throw new Error('this browser does not support passkeys');
        var o = await post(btn.getAttribute('data-options'), { csrf: csrf });
        if (!o.ok) throw new Error(o.body.error_description || 'refused');
        var register = btn.getAttribute('data-passkey') === 'register';
        var result = register ? await lib.startRegistration({ optionsJSON: o.body.options }) : await lib.startAuthentication({ optionsJSON: o.body.options });
        var nameInput = register ? document.getElementById(btn.getAttribute('data-name')) : null;
        var v = await post(btn.getAttribute('data-verify'), { csrf: csrf, response: result, name: nameInput ? nameInput.value : undefined });
        if (!v.ok) throw new Error(v.body.error_description || 'refused');
        if (v.body.location) { say('Signed in.'); window.location.assign(v.body.location); return; }
        say(v.body.message || 'Done.');
      } catch (e) {
        say('Passkey failed: ' + (e && e.message ? e.message : String(e)));
      } finally {
        btn.disabled = false;
      }
    });
  }
  document.querySelectorAll('[data-passkey]').forEach(wire);
})();
`;
