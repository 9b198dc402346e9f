// The dashboard's shell: the session (sign in with a key, exchanged for a cookie; the key is never kept in the page
// or in storage), the navigation and a hash router over the pages.
import { api, ApiError, onSignedOut, setCsrfToken } from './api.js';
import { h, notify } from './dom.js';
import { searchPage } from './search.js';
import { productPage } from './product.js';
import { trackedPage } from './tracked.js';
import { alertsPage } from './alerts.js';
import { statusPage } from './status.js';

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
const signOutButton = /** @type {HTMLButtonElement} */ (document.getElementById('sign-out'));

/** @type {{ name: string, prefix: string } | undefined} */
let signedInAs;

/** @param {HTMLElement} view @param {string} title */
function show(view, title) {
  document.title = `${title} · marketlens`;
  main.replaceChildren(view);
  for (const a of nav.querySelectorAll('a')) {
    if (location.hash.startsWith(a.getAttribute('href') ?? '#none')) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

/** @param {string} [message] */
function showSignIn(message) {
  signedInAs = undefined;
  setCsrfToken(undefined);
  nav.hidden = true;
  signOutButton.hidden = true;
  const keyInput = h('input', {
    id: 'api-key',
    name: 'key',
    type: 'password',
    autocomplete: 'off',
    required: true,
    spellcheck: 'false',
    'aria-describedby': 'api-key-help',
  });
  const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, message ?? '');
  const form = h(
    'form',
    { class: 'card narrow', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in'),
    h('label', { for: 'api-key' }, 'API key'),
    keyInput,
    h(
      'p',
      { id: 'api-key-help', class: 'help' },
      'Your key is exchanged for a session cookie; the page does not keep it.',
    ),
    h('button', { type: 'submit' }, 'Sign in'),
    error,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    try {
      const session = await api('/dashboard/session', { method: 'POST', body: { key: keyInput.value } });
      keyInput.value = '';
      signedIn(session);
      if (!location.hash || location.hash === '#/') location.hash = '#/search';
      else void route();
    } catch (err) {
      error.textContent = err instanceof ApiError ? err.message : 'Cannot reach the service';
      keyInput.focus();
    }
  });
  show(form, 'Sign in');
  keyInput.focus();
}

/** @param {{ key: { name: string, prefix: string }, csrf_token: string }} session */
function signedIn(session) {
  signedInAs = session.key;
  setCsrfToken(session.csrf_token);
  nav.hidden = false;
  signOutButton.hidden = false;
  signOutButton.textContent = `Sign out (${session.key.name})`;
}

signOutButton.addEventListener('click', async () => {
  try {
    await api('/dashboard/session', { method: 'DELETE' });
  } finally {
    // replaceState, not a hash change: the router would draw the form again without the message.
    history.replaceState(null, '', '#/');
    showSignIn('Signed out.');
  }
});

onSignedOut.add((message) => showSignIn(`Your session ended: ${message}`));

async function route() {
  if (!signedInAs) return showSignIn();
  const [, page = 'search', ...rest] = location.hash.replace(/^#/, '').split('/');
  const args = rest.map((r) => decodeURIComponent(r));
  try {
    if (page === 'product' && args.length >= 2)
      show(await productPage(args[0] ?? '', args.slice(1).join('/')), 'Product');
    else if (page === 'tracked') show(await trackedPage(), 'Tracked products');
    else if (page === 'alerts') show(await alertsPage(), 'Alerts');
    else if (page === 'status') show(await statusPage(), 'Status');
    else show(searchPage(args[0], args[1]), 'Search');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return;
    show(
      h(
        'div',
        { class: 'card' },
        h('h1', {}, 'Something went wrong'),
        h('p', { class: 'error' }, String(err instanceof Error ? err.message : err)),
      ),
      'Error',
    );
  }
  main.focus();
  notify('');
  // When each page had its data on screen (bench/dashboard.ts reads the product page's).
  performance.mark(`dashboard:${page}`);
}

window.addEventListener('hashchange', () => void route());

try {
  signedIn(await api('/dashboard/session'));
} catch {
  // Not signed in yet (or the session ended): the sign-in form.
}
await route();
