// The web client: sign-in, the tabs with a navigation path each (kept in the URL, so back, reload
// and a shared link work), and the mini-player.
import { api, session, setCsrfToken, onUnauthorized, onStaleSession } from './api.js';
import { h, message, said } from './dom.js';
import { MiniPlayer } from './player.js';
import * as views from './views.js';

const tabs = ['collection', 'crates', 'discover', 'search', 'history'];
const titles = { collection: 'Collection', crates: 'Crates', discover: 'Discover', search: 'Search', history: 'History' };
const bar = document.getElementById('bar');
const main = document.getElementById('main');
const viewElement = document.getElementById('view');
const signInForm = document.getElementById('sign-in');
const player = new MiniPlayer(document.getElementById('player'));
let stopView = null;
let renderCount = 0;
/** The entry of the page drawn: where Back returns to when the reader keeps their edits. */
let shown = null;
/** Set when the reader was asked already, before a move that ends in `popstate` (‹ Back). */
let leaveAsked = false;

/**
 * `/discover/genres/Jazz/artists/3/albums/5` -> tab `discover` and the stack
 * [genres/Jazz, artists/3, albums/5]; the screen is the stack's top, its parent the path without it.
 */
export function parseRoute(location) {
  // A segment that is not valid percent-encoding (`/discover/genres/100%`) makes the route malformed:
  // a page that does not exist, rather than an exception.
  let malformed = false;
  const segments = location.pathname.split('/').filter(Boolean).map((segment) => {
    try { return decodeURIComponent(segment); } catch { malformed = true; return segment; }
  });
  const tab = tabs.includes(segments[0]) ? segments[0] : 'collection';
  let rest = tabs.includes(segments[0]) ? segments.slice(1) : [];
  // The crates tab names its crate first: `/crates/3/albums/5` is crate 3, then album 5.
  if (tab === 'crates' && rest.length % 2 === 1) rest = ['crates', ...rest];
  const stack = [];
  for (let index = 0; index + 1 < rest.length; index += 2) stack.push({ kind: rest[index], id: rest[index + 1] });
  const pathOf = (entries) => `/${tab}` + entries.map((entry, index) =>
    (tab === 'crates' && index === 0 && entry.kind === 'crates' ? '' : `/${entry.kind}`) + `/${encodeURIComponent(entry.id)}`).join('');
  const path = pathOf(stack);
  const parent = stack.length ? pathOf(stack.slice(0, -1)) : null;
  return { tab, stack, path, parent, malformed, params: new URLSearchParams(location.search) };
}

const app = {
  player,
  navigate(href, { replace = false } = {}) {
    // Each entry notes the one it was opened from, so that ‹ Back can go back in history to it.
    if (replace) history.replaceState(history.state, '', href);
    else history.pushState({ from: location.pathname + location.search }, '', href);
    render();
  },
  refresh() { render({ keepScroll: true }); },
  /** Each tab remembers where its reader was, and each list its sort, filters or search. */
  rememberTab() {
    const route = parseRoute(location);
    if (route.malformed) return;
    sessionStorage.setItem(`tab:${route.tab}`, location.pathname + location.search);
    sessionStorage.setItem(`query:${route.path}`, location.search);
  },
  /** A path with the query its list had when last shown: where ‹ Back leads. */
  withQuery(path) { return path + (sessionStorage.getItem(`query:${path}`) ?? ''); },
};

async function render({ keepScroll = false } = {}) {
  const count = ++renderCount;
  stopView?.();
  stopView = null;
  shown = { href: location.pathname + location.search, state: history.state };
  window.removeEventListener('beforeunload', askBeforeUnload);
  const route = parseRoute(location);
  app.rememberTab();
  for (const link of document.querySelectorAll('#tabs a')) {
    if (link.dataset.tab === route.tab) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  const top = route.stack[route.stack.length - 1];
  document.title = `${titles[route.tab]} · crated`;
  const scroll = window.scrollY;
  const view = h('div', { class: `view view-${top?.kind ?? route.tab}` });
  viewElement.replaceChildren(view);
  if (!keepScroll) window.scrollTo(0, 0);
  try {
    let stop;
    if (route.malformed) view.append(message('There is no such page.', 'alert'));
    else if (!top) {
      const root = { collection: views.collection, crates: views.crates, discover: views.discover, search: views.search, history: views.historyView }[route.tab];
      stop = await root(view, route, app);
    } else if (top.kind === 'albums') stop = await views.album(view, route, app, top.id);
    else if (top.kind === 'artists') stop = await views.artist(view, route, app, top.id);
    else if (top.kind === 'crates') stop = await views.crate(view, route, app, top.id);
    else if (top.kind === 'genres' || top.kind === 'styles') stop = await views.genre(view, route, app, top.kind, top.id);
    else view.append(message('There is no such page.', 'alert'));
    if (count !== renderCount) { stop?.(); return; }
    stopView = stop ?? null;
    // A page below a tab's root names itself: the album, artist, crate or genre it shows.
    const named = top ? view.querySelector('h1')?.textContent : null;
    if (named) document.title = `${named} · ${titles[route.tab]} · crated`;
    if (keepScroll && !stop?.restoresPlace) window.scrollTo(0, scroll);
  } catch (error) {
    if (count !== renderCount) return;
    view.append(message(error.status === 404 ? 'Not found: it may have been removed.' : `Could not load this page: ${error.message}`, 'alert'));
  }
  view.dataset.ready = 'true';
}

function showSignIn() {
  stopView?.();
  stopView = null;
  player.stop();
  setCsrfToken(null);
  bar.hidden = true;
  viewElement.replaceChildren();
  document.title = 'Sign in · crated';
  signInForm.hidden = false;
  document.getElementById('sign-in-name').focus();
}

function startApp(current) {
  setCsrfToken(current.csrfToken);
  signInForm.hidden = true;
  bar.hidden = false;
  bar.dataset.user = current.user.name;
  document.getElementById('sign-out').setAttribute('aria-label', `Sign out ${current.user.name}`);
  if (location.pathname === '/' || location.pathname === '/signin') history.replaceState(null, '', '/collection' + location.search);
  player.start();
  render();
}

signInForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  document.getElementById('sign-in-error').textContent = '';
  const data = new FormData(signInForm);
  const button = signInForm.querySelector('button');
  button.disabled = true;
  try {
    const current = await session.signIn(data.get('name'), data.get('password'));
    signInForm.reset();
    startApp(current);
    main.focus({ preventScroll: true });
  } catch (failure) {
    // A new alert each time: a screen reader announces an element added with its text, where the
    // same text set again on a quick answer may never be seen to change.
    document.getElementById('sign-in-error').replaceWith(h('p', { id: 'sign-in-error', class: 'error', role: 'alert' },
      failure.status === 401 ? 'Wrong user name or password.' : said(failure)));
  } finally {
    // A disabled button lets go of the keyboard: it goes back to the password, to try again.
    const dropped = document.activeElement === document.body || document.activeElement === button;
    button.disabled = false;
    if (!signInForm.hidden && dropped) document.getElementById('sign-in-password')?.focus();
  }
});

document.getElementById('sign-out').addEventListener('click', async () => {
  if (!mayLeave()) return;
  try { await session.signOut(); } catch { /* signed out already */ }
  // The next to sign in here starts from the start, not at the places the last one left.
  sessionStorage.clear();
  history.replaceState(null, '', '/signin');
  showSignIn();
});

// Links inside the page navigate without reloading it; a tab link goes back to where that tab was,
// or to its root when it is the tab already shown.
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = event.target.closest('a[href]');
  if (!link || link.origin !== location.origin || link.target) return;
  event.preventDefault();
  let href = link.getAttribute('href');
  // The skip link only moves the keyboard to the content: no navigation, no redraw.
  if (href.startsWith('#')) { document.getElementById(href.slice(1))?.focus(); return; }
  if (!mayLeave()) return;
  // ‹ Back to the entry this one was opened from goes back in history, where the list was scrolled.
  if (link.classList.contains('back') && history.state?.from === href) { leaveAsked = true; history.back(); return; }
  const tab = link.dataset.tab;
  if (tab) href = tab === parseRoute(location).tab ? `/${tab}` : (sessionStorage.getItem(`tab:${tab}`) ?? `/${tab}`);
  if (href === location.pathname + location.search) {
    // The tab shown, asked for again, is drawn again (a history with the plays since, say), unless
    // that would throw away what is being typed.
    if (tab && !hasUnsavedInput()) render({ keepScroll: true });
    return;
  }
  app.navigate(href);
  if (!link.dataset.tab) main.focus({ preventScroll: true });
});

// Back cannot be called off: when the reader keeps their edits, their page is put back as a new entry.
window.addEventListener('popstate', () => {
  const asked = leaveAsked;
  leaveAsked = false;
  if (shown && !asked && !mayLeave()) { history.pushState(shown.state, '', shown.href); return; }
  render();
});

// A browser opens at most six HTTP/1.1 connections to a host, shared by all its tabs, and the
// player's event stream holds one while it is open: a hidden tab, or a page kept in the back-forward
// cache, gives its stream up and opens it again when shown.
const signedIn = () => !bar.hidden;

/**
 * The session as crated has it now, which another tab may have changed (signed out, or out and in
 * again, maybe as someone else): signed out shows the sign-in form, another user starts the page
 * over as theirs, the same user takes the new session's CSRF token. True when this page goes on.
 */
async function recheckSession() {
  let current;
  try {
    current = await session.current();
  } catch (error) {
    if (error.status === 401) showSignIn();
    return false;
  }
  if (current.user.name !== bar.dataset.user) {
    sessionStorage.clear();
    location.assign('/collection');
    return false;
  }
  setCsrfToken(current.csrfToken);
  return true;
}
onStaleSession(recheckSession);

document.addEventListener('visibilitychange', () => {
  if (!signedIn()) return;
  if (document.hidden) { player.suspend(); return; }
  player.resume();
  recheckSession();
});
window.addEventListener('pagehide', () => player.suspend());
window.addEventListener('pageshow', async (event) => {
  if (!event.persisted || !signedIn()) return;
  if (!document.hidden) player.resume();
  // Shown again as it was left, signed in: the session may have ended or changed meanwhile (in the
  // page that came after this one), and so may what the page shows (a crate deleted there).
  if (await recheckSession() && !hasUnsavedInput()) render({ keepScroll: true });
});

/** Whether a field of the page shown holds something other than what it was drawn with. */
function hasUnsavedInput(root = viewElement) {
  return [...root.querySelectorAll('input, textarea, select')].some((field) => {
    if (field instanceof HTMLSelectElement) {
      if (!field.options.length) return false;
      // Drawn with the last option marked selected, else the first.
      const drawn = Math.max(0, [...field.options].findLastIndex((option) => option.defaultSelected));
      return field.selectedIndex !== drawn;
    }
    if (field.type === 'checkbox' || field.type === 'radio') return field.checked !== field.defaultChecked;
    return field.value !== field.defaultValue;
  });
}

/** Whether a form that saves what is typed in it (a copy's, a crate's name) holds edits not saved. */
function hasUnsavedEdits() {
  return [...viewElement.querySelectorAll('form[data-edits]')].some((form) => hasUnsavedInput(form));
}

/** Whether to go on to another page: yes, unless there are edits to lose and the reader says stay. */
function mayLeave() {
  return !hasUnsavedEdits() || window.confirm('Your changes on this page are not saved. Leave it anyway?');
}

// Closing or reloading the tab asks too; listened for only while there are edits, as some
// browsers keep a page with a beforeunload listener out of their back-forward cache.
const askBeforeUnload = (event) => {
  if (!hasUnsavedEdits()) return;
  event.preventDefault();
  event.returnValue = true;  // for older browsers
};
function guardUnload() {
  if (hasUnsavedEdits()) window.addEventListener('beforeunload', askBeforeUnload);
  else window.removeEventListener('beforeunload', askBeforeUnload);
}
viewElement.addEventListener('input', guardUnload);
viewElement.addEventListener('change', guardUnload);

onUnauthorized(showSignIn);

session.current().then(startApp, showSignIn);
