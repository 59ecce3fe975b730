// The browser half of Proctor's passkey ceremonies (WebAuthn). A page marks its button with
// data-passkey="register" or "sign-in" and names, in data- attributes, the two same-origin
// endpoints (data-begin, data-finish), the form's CSRF token (data-csrf), where a sign-in goes
// afterwards (data-return-to), whether a signed-in member is asked again (data-step-up), the name field (data-name) and where to say what went wrong
// (data-status). The script is one cached file for every language, so the page writes the
// script's own sentences in the member's language into data-say-* attributes of the button
// (see sentences below); the English ones here serve only a page that lacks them. The endpoints take form posts and answer JSON: begin answers the options for
// navigator.credentials, finish takes the credential as JSON and answers {"redirect": path} or
// an error in the shape of RFC 6749 section 5.2 whose error_description is a sentence for the
// member. Nothing here is inline, so the pages' Content-Security-Policy allows
// script from this origin only.
(function () {
  'use strict';

  function fromB64url(s) {
    var b64 = s.replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4) { b64 += '='; }
    var bin = atob(b64);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out.buffer;
  }

  function toB64url(buf) {
    var bytes = new Uint8Array(buf);
    var bin = '';
    for (var i = 0; i < bytes.length; i++) { bin += String.fromCharCode(bytes[i]); }
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function creationOptions(o) {
    o.challenge = fromB64url(o.challenge);
    o.user.id = fromB64url(o.user.id);
    (o.excludeCredentials || []).forEach(function (c) { c.id = fromB64url(c.id); });
    return o;
  }

  function requestOptions(o) {
    o.challenge = fromB64url(o.challenge);
    (o.allowCredentials || []).forEach(function (c) { c.id = fromB64url(c.id); });
    return o;
  }

  // credentialJSON is the credential in the WebAuthn JSON form (PublicKeyCredential.toJSON),
  // built by hand where the browser lacks toJSON.
  function credentialJSON(cred) {
    var r = cred.response;
    var out = {
      id: cred.id,
      rawId: toB64url(cred.rawId),
      type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: { clientDataJSON: toB64url(r.clientDataJSON) }
    };
    if (cred.authenticatorAttachment) { out.authenticatorAttachment = cred.authenticatorAttachment; }
    if (r.attestationObject) {
      out.response.attestationObject = toB64url(r.attestationObject);
      if (r.getTransports) { out.response.transports = r.getTransports(); }
    }
    if (r.authenticatorData) {
      out.response.authenticatorData = toB64url(r.authenticatorData);
      out.response.signature = toB64url(r.signature);
      if (r.userHandle) { out.response.userHandle = toB64url(r.userHandle); }
    }
    return out;
  }

  // sentences are the script's own messages: each is read from the button's data-say-<name>
  // attribute, which the page writes in the member's language.
  var sentences = {
    cancelled: 'The passkey was not used. Try again when you are ready.',
    exists: 'This device already holds a passkey for your account here.',
    browser: 'Your browser could not use a passkey here.',
    failed: 'Something went wrong. Please try again.',
    unsupported: 'This browser cannot use passkeys.'
  };

  function sentence(btn, name) {
    var key = 'say' + name.charAt(0).toUpperCase() + name.slice(1);
    return btn.dataset[key] || sentences[name];
  }

  // post sends fields to url and answers its JSON; a refusal becomes an Error whose message is
  // the server's sentence (empty when the answer has none).
  function post(url, fields) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Accept': 'application/json' },
      body: new URLSearchParams(fields)
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok) { throw new Error(data.error_description || ''); }
        return data;
      });
    });
  }

  function say(btn, text) {
    var el = document.getElementById(btn.dataset.status);
    if (!el) { return; }
    el.textContent = text;
    el.hidden = !text;
  }

  // A refusal by the browser or the member (cancelled, timed out) has a DOMException name; the
  // server's refusals come as sentences.
  function message(btn, err) {
    if (err && (err.name === 'NotAllowedError' || err.name === 'AbortError')) {
      return sentence(btn, 'cancelled');
    }
    if (err && err.name === 'InvalidStateError') {
      return sentence(btn, 'exists');
    }
    if (err && err.name && err.name !== 'Error') {
      return sentence(btn, 'browser');
    }
    return (err && err.message) || sentence(btn, 'failed');
  }

  function register(btn) {
    var nameField = document.getElementById(btn.dataset.name);
    return post(btn.dataset.begin, { csrf_token: btn.dataset.csrf }).then(function (opts) {
      return navigator.credentials.create({ publicKey: creationOptions(opts.publicKey) });
    }).then(function (cred) {
      return post(btn.dataset.finish, {
        csrf_token: btn.dataset.csrf,
        name: nameField ? nameField.value : '',
        response: JSON.stringify(credentialJSON(cred))
      });
    });
  }

  function signIn(btn) {
    var fields = { csrf_token: btn.dataset.csrf, return_to: btn.dataset.returnTo || '', step_up: btn.dataset.stepUp || '' };
    return post(btn.dataset.begin, fields).then(function (opts) {
      return navigator.credentials.get({ publicKey: requestOptions(opts.publicKey) });
    }).then(function (cred) {
      fields.response = JSON.stringify(credentialJSON(cred));
      return post(btn.dataset.finish, fields);
    });
  }

  function start(btn, ceremony) {
    btn.addEventListener('click', function () {
      btn.disabled = true;
      say(btn, '');
      ceremony(btn).then(function (res) {
        // The server names a path on this origin; anything else is ignored.
        if (res.redirect && res.redirect.charAt(0) === '/' && res.redirect.charAt(1) !== '/' && res.redirect.charAt(1) !== '\\') {
          window.location.assign(res.redirect);
          return;
        }
        btn.disabled = false;
      }).catch(function (err) {
        say(btn, message(btn, err));
        btn.disabled = false;
      });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var supported = window.PublicKeyCredential && navigator.credentials;
    document.querySelectorAll('[data-passkey]').forEach(function (btn) {
      if (!supported) {
        btn.disabled = true;
        say(btn, sentence(btn, 'unsupported'));
        return;
      }
      start(btn, btn.dataset.passkey === 'register' ? register : signIn);
    });
  });
})();
