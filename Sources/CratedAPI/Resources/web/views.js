// The screens of each tab. Each renders into the view element and returns what must be stopped when
// the reader leaves (a grid's listeners).
import { api, query } from './api.js';
import { h, cover, duration, message, said } from './dom.js';
import { AlbumGrid, screenScale } from './grid.js';

const enc = encodeURIComponent;

/** Album page path within the current tab, so the tab keeps its own stack. */
function albumPath(base, albumId) { return `${base}/albums/${albumId}`; }

/**
 * An album's artist, pushed on the tab's stack so that ‹ Back returns to the album; when the album
 * was opened from that artist's page, the link goes back up to it instead of stacking it again.
 */
function artistPath(route, artistId) {
  const below = route.stack[route.stack.length - 2];
  return below?.kind === 'artists' && below.id === String(artistId) ? route.parent : `${route.path}/artists/${artistId}`;
}

/**
 * A play started from a page: the player refuses some (an empty crate, a record without tracks),
 * and says why in `status`.
 */
function playing(command, status) {
  status.textContent = '';
  command.catch((failure) => { status.textContent = said(failure); });
}

function heading(text, ...rest) { return h('header', { class: 'view-head' }, h('h1', {}, text), ...rest); }

/** Back to the list this page was opened from, with its sort, filters or search as they were. */
function backLink(route, app) {
  if (!route.parent) return null;
  return h('a', { href: app.withQuery(route.parent), class: 'back' }, '‹ Back');
}

function albumGrid(endpoint, params, route, label, empty) {
  return new AlbumGrid(endpoint, params, { link: (id) => albumPath(route.path, id), label, empty });
}

async function mountGrid(view, grid) {
  view.append(grid.element);
  try {
    await grid.start();
  } catch (error) {
    // A first page refused (a bad filter, a grid that is gone): the page says why, and the grid,
    // which no one will stop, must not go on following the window.
    grid.stop();
    throw error;
  }
  const stop = () => grid.stop();
  // The grid brings its top album back itself: a redraw must not scroll the window after it.
  stop.restoresPlace = true;
  return stop;
}

const sorts = [['artist', 'Artist'], ['title', 'Title'], ['year', 'Year'], ['dateAdded', 'Date added'], ['rating', 'Rating']];

function filterBar(route, app) {
  const params = route.params;
  const field = (name, label, attrs = {}) => h('label', {}, label, ' ', h('input', { name, value: params.get(name) ?? '', ...attrs }));
  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Sort and filter' },
    h('label', {}, 'Sort ', h('select', { name: 'sort' },
      sorts.map(([value, text]) => h('option', { value, selected: (params.get('sort') ?? 'artist') === value }, text)))),
    field('genre', 'Genre', { size: 10 }), field('style', 'Style', { size: 10 }), field('format', 'Format', { size: 5 }),
    field('yearFrom', 'From', { type: 'number', min: 1, max: 9999, class: 'year' }),
    field('yearTo', 'To', { type: 'number', min: 1, max: 9999, class: 'year' }),
    h('button', { type: 'submit' }, 'Apply'));
  const [yearFrom, yearTo] = [form.elements.yearFrom, form.elements.yearTo];
  // Said at the field, in its own words, rather than as crated's refusal of `yearTo`.
  yearTo.addEventListener('input', () => yearTo.setCustomValidity(''));
  yearFrom.addEventListener('input', () => yearTo.setCustomValidity(''));
  const apply = (event) => {
    event?.preventDefault();
    if (yearFrom.value && yearTo.value && Number(yearTo.value) < Number(yearFrom.value)) {
      yearTo.setCustomValidity(`To must not be before From (${yearFrom.value}).`);
      yearTo.reportValidity();
      return;
    }
    const next = new URLSearchParams();
    for (const [key, value] of new FormData(form)) if (value && !(key === 'sort' && value === 'artist')) next.set(key, value);
    const text = next.toString();
    const focused = [...form.elements].indexOf(document.activeElement);
    app.navigate(route.path + (text ? `?${text}` : ''), { replace: true });
    // The view is drawn anew, its filter bar first: the keyboard goes back to the control it was on
    // (the Sort select, a field, Apply), so arrow keys keep stepping through the sorts.
    if (focused >= 0) document.querySelector('form.filters')?.elements[focused]?.focus();
  };
  form.addEventListener('submit', apply);
  form.querySelector('select').addEventListener('change', apply);
  return form;
}

function gridParams(params) {
  const out = {};
  for (const key of ['sort', 'genre', 'style', 'format', 'yearFrom', 'yearTo', 'crate', 'artist']) if (params.get(key)) out[key] = params.get(key);
  return out;
}

export async function collection(view, route, app) {
  view.append(heading('Collection'), filterBar(route, app));
  const params = gridParams(route.params);
  // Empty without a filter is a collection not brought in yet: say how it comes.
  const filtered = Object.keys(params).some((key) => key !== 'sort');
  const empty = filtered ? 'No albums match these filters.'
    : 'Your collection is empty. Import a Discogs export on the server with crated import FILE --user NAME, '
      + 'or have the operator link your Discogs account (crated user link) for it to come with the next sync.';
  return mountGrid(view, albumGrid('/v1/grid/collection', params, route, 'Albums', empty));
}

export async function crates(view, route, app) {
  const { crates } = await api(`/v1/crates${query({ scale: screenScale() })}`);
  const name = h('input', { name: 'name', required: true, maxlength: 100, 'aria-label': 'New crate name', placeholder: 'New crate' });
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', { class: 'inline-form' }, name, h('button', { type: 'submit' }, 'Create crate'), error);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const crate = await api('/v1/crates', { method: 'POST', body: { name: name.value } });
      app.navigate(`/crates/${crate.id}`);
    } catch (failure) { error.textContent = said(failure); }
  });
  view.append(heading('Crates'), form,
    crates.length === 0 ? message('No crates yet.') :
      h('ul', { class: 'rows', 'aria-label': 'Crates' }, crates.map((crate) =>
        h('li', {}, cover(crate.artwork, ''), h('a', { href: `/crates/${crate.id}` }, h('span', { class: 'title' }, crate.name),
          h('span', { class: 'count' }, `${crate.copies} ${crate.copies === 1 ? 'copy' : 'copies'}`))))));
}

export async function crate(view, route, app, id) {
  const detail = await api(`/v1/crates/${id}${query({ limit: 500, scale: screenScale() })}`);
  const title = h('h1', {}, detail.name);
  const renameInput = h('input', { value: detail.name, 'aria-label': 'Crate name', required: true, maxlength: 100 });
  const error = h('p', { class: 'error', role: 'alert' });
  const rename = h('form', { class: 'inline-form', 'data-edits': true }, renameInput, h('button', { type: 'submit' }, 'Rename'));
  rename.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const renamed = await api(`/v1/crates/${id}`, { method: 'PATCH', body: { name: renameInput.value } });
      // The window's title leads with the name shown (`Name · Crates · crated`).
      if (document.title.startsWith(title.textContent)) document.title = renamed.name + document.title.slice(title.textContent.length);
      title.textContent = renamed.name;
      renameInput.defaultValue = renamed.name;
      // The grid's name for a screen reader, given when it was drawn.
      view.querySelector('ol.grid')?.setAttribute('aria-label', `Albums in ${renamed.name}`);
      error.textContent = '';
    } catch (failure) { error.textContent = said(failure); }
  });
  const remove = h('button', { type: 'button', class: 'danger', onclick: async () => {
    // The name shown, which a rename since the page was drawn has changed.
    if (!window.confirm(`Delete the crate “${title.textContent}”? The records stay in your collection.`)) return;
    // Replaced, not pushed: Back must not lead to the crate that is gone.
    try { await api(`/v1/crates/${id}`, { method: 'DELETE' }); app.navigate('/crates', { replace: true }); } catch (failure) { error.textContent = said(failure); }
  } }, 'Delete crate');
  const play = h('button', { type: 'button', onclick: () => playing(app.player.command('play', { crateId: Number(id) }), error) }, 'Play crate');
  view.append(h('header', { class: 'view-head' }, backLink(route, app), title, h('div', { class: 'actions' }, play, rename, remove)), error);

  // The grid shows the crate in its own order (crated's default for a crate), so a move redraws it.
  const grid = albumGrid(`/v1/grid/crates/${id}`, gridParams(route.params), route, `Albums in ${detail.name}`, 'This crate is empty.');
  // The crate's order, editable: move a copy up or down (before/after its neighbour) or take it out.
  const order = h('ol', { class: 'rows order', 'aria-label': 'Crate order' });
  // All the crate's copies, of which the panel lists the first 500.
  let copies = detail.copies;
  const renderOrder = (items) => {
    order.replaceChildren(...items.map((item, index) => h('li', { dataset: { copyId: String(item.copyId) } },
      cover(item.album.artwork, ''),
      h('a', { href: albumPath(route.path, item.album.id) }, h('span', { class: 'title' }, item.album.title), h('span', { class: 'artist' }, item.album.artistCredit)),
      h('span', { class: 'actions' },
        h('button', { type: 'button', 'aria-label': `Move ${item.album.title} up`, disabled: index === 0,
          onclick: () => move(items, index, -1) }, '↑'),
        h('button', { type: 'button', 'aria-label': `Move ${item.album.title} down`, disabled: index === items.length - 1,
          onclick: () => move(items, index, 1) }, '↓'),
        h('button', { type: 'button', 'aria-label': `Remove ${item.album.title} from the crate`,
          onclick: () => orderChange(async () => {
            await api(`/v1/crates/${id}/copies/${item.copyId}`, { method: 'DELETE' });
            copies -= 1;
            items.splice(index, 1);
            renderOrder(items);
            grid.redraw();
            // The keyboard goes on to the record now in its place.
            const rows = order.querySelectorAll('li');
            (rows[Math.min(index, rows.length - 1)]?.querySelector('button:last-child') ?? summary).focus();
          }) }, 'Remove')))));
    summary.textContent = `Order (${copies})`;
  };
  // A change refused (another device took the copy out first) is said, and the order shown as it is now.
  const orderChange = (change) => change().catch(async (failure) => {
    error.textContent = said(failure);
    try {
      const now = await api(`/v1/crates/${id}${query({ limit: 500, scale: screenScale() })}`);
      copies = now.copies;
      renderOrder(now.items);
      grid.redraw();
    } catch { /* the refusal is said already */ }
  });
  const move = (items, index, step) => orderChange(async () => {
    const moved = items[index];
    const other = items[index + step];
    await api(`/v1/crates/${id}/copies/${moved.copyId}`, { method: 'PATCH', body: step < 0 ? { before: other.copyId } : { after: other.copyId } });
    [items[index], items[index + step]] = [other, moved];
    renderOrder(items);
    grid.redraw();
    // Keep the keyboard on the record that moved.
    const buttons = order.querySelectorAll(`li[data-copy-id="${moved.copyId}"] button`);
    (step < 0 ? buttons[0] : buttons[1])?.focus();
  });
  const summary = h('summary', {});
  // Open as it was left in this tab.
  const panelKey = `crate-order-open:${id}`;
  const panel = h('details', { class: 'order-panel', open: sessionStorage.getItem(panelKey) === '1' }, summary, order);
  panel.addEventListener('toggle', () => sessionStorage.setItem(panelKey, panel.open ? '1' : '0'));
  renderOrder(detail.items);
  view.append(panel, addAlbumsPanel(id, async () => {
    const now = await api(`/v1/crates/${id}${query({ limit: 500, scale: screenScale() })}`);
    copies = now.copies;
    renderOrder(now.items);
    grid.redraw();
  }));
  return mountGrid(view, grid);
}

/** Filling a crate from its own page: albums found by search, each added with a button. */
function addAlbumsPanel(crateId, added) {
  const input = h('input', { type: 'search', 'aria-label': 'Find albums to add', placeholder: 'Find albums to add', autocomplete: 'off', maxlength: 200 });
  const results = h('ol', { class: 'rows add-results', 'aria-label': 'Albums found' });
  const status = h('p', { class: 'status', role: 'status' });
  let timer = 0;
  let asked = 0;
  const find = async () => {
    const text = input.value.trim();
    const ask = ++asked;
    if (!text) { results.replaceChildren(); status.textContent = ''; return; }
    try {
      const found = await api(`/v1/search${query({ q: text, limit: 10, scale: screenScale() })}`);
      // A later letter's answer may have come first.
      if (ask !== asked) return;
      status.textContent = found.albums.length ? '' : 'Nothing in your collection matches.';
      results.replaceChildren(...found.albums.map((album) => {
        const button = h('button', { type: 'button', 'aria-label': `Add ${album.title}`, onclick: async () => {
          button.disabled = true;
          let answer;
          try {
            answer = await api(`/v1/crates/${crateId}/albums`, { method: 'POST', body: { albumIds: [album.id] } });
            button.textContent = answer.added ? 'Added' : 'In the crate';
            status.textContent = answer.added ? `Added ${album.title}.` : `${album.title} is in the crate already.`;
          } catch (failure) {
            status.textContent = said(failure);
          }
          // A disabled button lets go of the keyboard: it is given back.
          button.disabled = false;
          if (document.activeElement === document.body) button.focus();
          if (!answer) return;
          try { await added(); } catch (failure) { status.textContent = `${status.textContent} The crate could not be shown again: ${said(failure)}`; }
        } }, 'Add');
        return h('li', {}, cover(album.artwork, ''),
          h('span', { class: 'listing' }, h('span', { class: 'title' }, album.title), h('span', { class: 'artist' }, album.artistCredit)),
          h('span', { class: 'actions' }, button));
      }));
    } catch (failure) {
      if (ask === asked) status.textContent = said(failure);
    }
  };
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(find, 200); });
  return h('details', { class: 'add-panel' }, h('summary', {}, 'Add albums'),
    h('form', { role: 'search', class: 'search', onsubmit: (event) => { event.preventDefault(); clearTimeout(timer); find(); } }, input),
    status, results);
}

export async function discover(view) {
  const { genres, styles } = await api('/v1/genres');
  const list = (items, kind) => items.length === 0 ? message(`No ${kind} yet: sync fills them in from Discogs.`) :
    h('ul', { class: 'chips', 'aria-label': kind }, items.map((item) =>
      h('li', {}, h('a', { href: `/discover/${kind}/${enc(item.name)}` }, item.name, ' ', h('span', { class: 'count' }, String(item.count ?? item.albums ?? ''))))));
  view.append(heading('Discover'), h('h2', {}, 'Genres'), list(genres, 'genres'), h('h2', {}, 'Styles'), list(styles, 'styles'));
}

export async function genre(view, route, app, kind, name) {
  const data = await api(`/v1/${kind}/${enc(name)}/artists`);
  view.append(h('header', { class: 'view-head' }, backLink(route, app), h('h1', {}, name)),
    h('h2', {}, 'Artists'),
    h('ul', { class: 'chips', 'aria-label': 'Artists' }, data.artists.map((artist) =>
      h('li', {}, h('a', { href: `${route.path}/artists/${artist.id}` }, artist.name, ' ', h('span', { class: 'count' }, String(artist.albums)))))),
    h('h2', {}, 'Albums'));
  return mountGrid(view, albumGrid(`/v1/grid/${kind}/${enc(name)}`, {}, route, `Albums in ${name}`));
}

export async function artist(view, route, app, id) {
  const data = await api(`/v1/artists/${id}${query({ scale: screenScale() })}`);
  view.append(h('header', { class: 'view-head' }, backLink(route, app), h('h1', {}, data.name)));
  // Above their own albums, whose grid follows the window's scrolling to its end.
  // A credited album says what it credits them as after its artists: `Various · Producer`.
  const credited = (data.creditedOn ?? []).map(({ album, roles }) => ({ ...album, artistCredit: [album.artistCredit, ...roles].join(' · ') }));
  const listed = [['appears-on', 'Appears on', data.appearsOn], ['credited-on', 'Credited on', credited]];
  for (const [key, heading, albums] of listed.filter(([, , albums]) => albums.length)) {
    view.append(h('section', { class: key, 'aria-labelledby': key }, h('h2', { id: key }, heading),
      h('ul', { class: 'rows' }, albums.map((album) => h('li', {}, cover(album.artwork, ''),
        h('a', { href: albumPath(route.path, album.id) }, h('span', { class: 'title' }, album.title),
          h('span', { class: 'artist' }, album.artistCredit)))))));
  }
  if (!data.albums.length && listed.some(([, , albums]) => albums.length)) return null;
  return mountGrid(view, albumGrid(`/v1/grid/artists/${id}`, {}, route, `Albums by ${data.name}`));
}

export async function search(view, route, app) {
  const input = h('input', { type: 'search', name: 'q', value: route.params.get('q') ?? '', 'aria-label': 'Search your collection',
    placeholder: 'Titles, artists, labels, catalogue numbers, tracks, credits', autocomplete: 'off', maxlength: 200 });
  const results = h('div', { class: 'results' });
  view.append(heading('Search'), h('form', { role: 'search', class: 'search', onsubmit: (event) => event.preventDefault() }, input), results);
  let stop = null;
  let timer = 0;
  const run = async () => {
    const text = input.value.trim();
    stop?.();
    stop = null;
    results.replaceChildren();
    history.replaceState(history.state, '', text ? `/search?q=${enc(text)}` : '/search');
    app.rememberTab();
    if (!text) return;
    const grid = albumGrid('/v1/grid/search', { q: text }, { ...route, path: '/search' }, `Results for ${text}`, 'Nothing in your collection matches.');
    // Stoppable before its first page comes: the next letter typed may come first.
    stop = () => grid.stop();
    await mountGrid(results, grid);
  };
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(run, 150); });
  setTimeout(() => input.focus(), 0);
  if (input.value) await run();
  return () => { clearTimeout(timer); stop?.(); };
}

export async function historyView(view, route, app) {
  const list = h('ol', { class: 'rows', 'aria-label': 'Play history' });
  const more = h('button', { type: 'button', hidden: true }, 'Older plays');
  const none = message('Nothing played yet.');
  let before = null;
  const load = async () => {
    const page = await api(`/v1/history${query({ before, limit: 50, scale: screenScale() })}`);
    if (!before) list.replaceChildren();
    list.append(...page.entries.map((entry) => h('li', {}, cover(entry.artwork, ''),
      h('a', { href: `/history/albums/${entry.albumId}` },
        h('span', { class: 'title' }, `${entry.trackPosition} ${entry.trackTitle}`),
        h('span', { class: 'artist' }, `${entry.artist} — ${entry.albumTitle}`)),
      h('time', { datetime: entry.playedAt }, new Date(entry.playedAt).toLocaleString()))));
    before = page.next ?? null;
    more.hidden = !before;
    none.hidden = list.children.length > 0;
  };
  more.addEventListener('click', load);
  view.append(heading('History'), none, list, more);
  await load();
  // A play is written as the turntable moves on (the next track, a stop): the newest are read again
  // then, the older pages left for the button. Shortly after, as a command's answer and its event
  // come together.
  let timer = 0;
  const unsubscribe = app.player.subscribe(() => {
    clearTimeout(timer);
    timer = setTimeout(() => { before = null; load().catch(() => {}); }, 300);
  });
  return () => { clearTimeout(timer); unsubscribe(); };
}

// Goldmine grades as Discogs writes them; a sleeve may also be generic, absent or not graded.
const mediaGrades = ['Mint (M)', 'Near Mint (NM or M-)', 'Very Good Plus (VG+)', 'Very Good (VG)', 'Good Plus (G+)', 'Good (G)', 'Fair (F)', 'Poor (P)'];
const sleeveGrades = [...mediaGrades, 'Generic', 'Not Graded', 'No Cover'];

export async function album(view, route, app, id) {
  const data = await api(`/v1/albums/${id}${query({ scale: screenScale(), idiom: innerWidth >= 600 ? 'pad' : undefined })}`);
  const artists = h('p', { class: 'artists' }, data.artists.length ? data.artists.map((credit) =>
    [h('a', { href: artistPath(route, credit.id) }, credit.name), credit.joinPhrase]) : data.artistCredit);
  const facts = [data.year, data.country, data.labels.map((label) => [label.name, label.catalogNumber].filter(Boolean).join(' ')).join(', '),
    data.formats.map((format) => [format.quantity > 1 ? `${format.quantity}×` : '', format.name, ...format.descriptions].join(' ').trim()).join(' + ')]
    .filter(Boolean).join(' · ');
  const playError = h('p', { class: 'error', role: 'alert' });
  const play = h('button', { type: 'button', onclick: () => playing(app.player.command('play', { albumId: Number(id) }), playError) }, 'Play');
  const playsText = (count) => count ? `Played ${count} ${count === 1 ? 'time' : 'times'}` : '';
  const plays = h('p', { class: 'plays' }, playsText(data.playCount));
  view.append(h('header', { class: 'album-head' }, cover(data.artwork, data.title),
    h('div', {}, backLink(route, app), h('h1', {}, data.title), artists, h('p', { class: 'facts' }, facts),
      h('p', { class: 'tags' }, [...data.genres, ...data.styles].join(', ')),
      plays,
      data.sides.length ? [play, playError] : message('No tracklist yet: sync fills it in from Discogs.'))));

  for (const side of data.sides) {
    view.append(h('section', { class: 'side', 'aria-label': side.side ? `Side ${side.side}` : 'Tracks' },
      h('h2', {}, side.side ? `Side ${side.side}` : 'Tracks', ' ', h('span', { class: 'count' }, duration(side.durationMs)),
        side.side ? h('button', { type: 'button', class: 'quiet', 'aria-label': `Play side ${side.side}`,
          onclick: () => playing(app.player.command('play', { albumId: Number(id), side: side.side }), playError) }, '▶') : null),
      h('ol', { class: 'tracks' }, side.tracks.map((track) => { const credits = trackCredits(track); return h('li', { class: track.kind },
        track.kind === 'heading' ? h('span', { class: 'title' }, track.title) :
          h('button', { type: 'button', class: 'track',
            // The label is all a screen reader says of the button: its credits are in it too.
            'aria-label': `Play ${track.position} ${track.title}${track.artist ? ` by ${track.artist}` : ''}${credits ? `, ${credits}` : ''}`,
            onclick: () => playing(app.player.command('play', { albumId: Number(id), trackId: track.id }), playError) },
          h('span', { class: 'position' }, track.position),
          h('span', { class: 'title' }, track.title, track.artist ? h('span', { class: 'by' }, track.artist) : null,
            // Plain text: the row is a button, and a link inside one is not allowed.
            credits ? h('span', { class: 'by' }, credits) : null),
          h('span', { class: 'time' }, duration(track.durationMs)))); }))));
  }
  if (data.credits?.length) {
    view.append(h('section', { class: 'credits', 'aria-labelledby': 'credits' }, h('h2', { id: 'credits' }, 'Credits'),
      h('ul', {}, data.credits.map((credit) => h('li', {}, h('span', { class: 'role' }, credit.role), ' – ',
        credit.artistId ? h('a', { href: artistPath(route, credit.artistId) }, credit.creditedAs ?? credit.name) : credit.creditedAs ?? credit.name,
        credit.tracks ? h('span', { class: 'count' }, ` (${credit.tracks})`) : null)))));
  }

  const crateList = (await api('/v1/crates')).crates;
  const copiesHeading = h('h2', { tabindex: -1 }, data.copies.length === 1 ? 'Your copy' : 'Your copies');
  const copies = h('ul', { class: 'copies' }, data.copies.map((copy) => copyEditor(copy, crateList, app, {
    // In place: drawn again, the page would empty the other forms. Its last copy gone, the page goes too.
    removed: (item) => {
      if (copies.children.length <= 1) { app.navigate(app.withQuery(route.parent ?? '/'), { replace: true }); return; }
      item.remove();
      copiesHeading.textContent = copies.children.length === 1 ? 'Your copy' : 'Your copies';
      copiesHeading.focus();
    },
  })));
  view.append(copiesHeading, copies);

  // A play is written when half its track is heard (4 minutes at most), with no new player state:
  // the count is read then, and when the turntable moves on from one of this album's tracks.
  let moved = 0;
  let counted = 0;
  const readCount = () => api(`/v1/albums/${id}`).then((now) => { plays.textContent = playsText(now.playCount); }).catch(() => {});
  const awaitCount = (state) => {
    clearTimeout(counted);
    if (state?.album?.id !== data.id || !state.isPlaying) return;
    const left = Math.min((state.durationMs ?? Infinity) / 2, 240_000) - app.player.position();
    if (left >= 0) counted = setTimeout(readCount, left + 500);
  };
  awaitCount(app.player.state);
  let onThisAlbum = app.player.state?.album?.id === data.id;
  const unsubscribe = app.player.subscribe((state) => {
    awaitCount(state);
    const wasOnThisAlbum = onThisAlbum;
    onThisAlbum = state.album?.id === data.id;
    if (!wasOnThisAlbum) return;
    clearTimeout(moved);
    moved = setTimeout(readCount, 300);
  });
  return () => { clearTimeout(moved); clearTimeout(counted); unsubscribe(); };
}

/** A track's own credits as one line, `Remix: A Remixer · Piano: Bill Evans`; empty without any. */
function trackCredits(track) {
  return (track.credits ?? []).map((credit) => `${credit.role}: ${credit.creditedAs ?? credit.name}`).join(' · ');
}

function copyEditor(copy, crateList, app, { removed }) {
  const status = h('p', { class: 'status', role: 'status' });
  // A grade the list lacks is offered too, so that saving the other fields keeps it.
  const select = (name, grades, value) => h('select', { name, 'aria-label': name === 'mediaCondition' ? 'Media condition' : 'Sleeve condition' },
    h('option', { value: '' }, '—'), [...grades, ...(value && !grades.includes(value) ? [value] : [])]
      .map((text) => h('option', { value: text, selected: value === text }, text)));
  const fields = Object.entries(copy.customFields ?? {}).map(([name, value]) => `${name}: ${value}`);
  const form = h('form', { class: 'copy-form', 'aria-label': `Copy added ${copy.dateAdded.slice(0, 10)}`, 'data-edits': true },
    h('p', { class: 'facts' }, [`Added ${copy.dateAdded.slice(0, 16).replace('T', ' ')}`, ...fields].join(' · ')),
    h('label', {}, 'Rating ', h('select', { name: 'rating' }, h('option', { value: '' }, 'None'),
      // Read out as a number: a screen reader says "black star" for each ★.
      [1, 2, 3, 4, 5].map((n) => h('option', { value: n, selected: copy.rating === n, 'aria-label': n === 1 ? '1 star' : `${n} stars` },
        '★'.repeat(n))))),
    h('label', {}, 'Media ', select('mediaCondition', mediaGrades, copy.mediaCondition)),
    h('label', {}, 'Sleeve ', select('sleeveCondition', sleeveGrades, copy.sleeveCondition)),
    h('label', { class: 'notes' }, 'Notes ', h('textarea', { name: 'notes', rows: 2 }, copy.notes ?? '')),
    h('button', { type: 'submit' }, 'Save'), status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    try {
      await api(`/v1/copies/${copy.id}`, { method: 'PATCH', body: {
        rating: values.rating ? Number(values.rating) : null, mediaCondition: values.mediaCondition || null,
        sleeveCondition: values.sleeveCondition || null, notes: values.notes || null } });
      status.textContent = 'Saved.';
      // What was saved is what the form now holds unedited.
      for (const field of form.elements) {
        if (field instanceof HTMLSelectElement) for (const option of field.options) option.defaultSelected = option.selected;
        else if ('defaultValue' in field) field.defaultValue = field.value;
      }
    } catch (failure) { status.textContent = said(failure); }
  });
  // "Saved." speaks of the fields as they were sent: an edit since is not saved.
  form.addEventListener('input', () => { status.textContent = ''; });

  // Add to a crate: one of the user's, or a new one made on the spot.
  const inCrates = h('p', { class: 'in-crates' });
  const choice = h('select', { name: 'crate', 'aria-label': 'Crate' });
  const newName = h('input', { name: 'newCrate', 'aria-label': 'New crate name', placeholder: 'New crate name', maxlength: 100 });
  // The copy's crates, and the others to offer.
  const drawCrates = () => {
    inCrates.replaceChildren(...(copy.crates.length
      ? ['In ', ...copy.crates.flatMap((c, i) => [i ? ', ' : '', h('a', { href: `/crates/${c.id}` }, c.name)])] : ['In no crate']));
    choice.replaceChildren(...crateList.filter((c) => !copy.crates.some((own) => own.id === c.id)).map((c) => h('option', { value: c.id }, c.name)),
      h('option', { value: 'new' }, 'New crate…'));
    newName.hidden = choice.value !== 'new';
  };
  drawCrates();
  choice.addEventListener('change', () => { newName.hidden = choice.value !== 'new'; });
  const addStatus = h('p', { class: 'status', role: 'status' });
  const add = h('form', { class: 'inline-form add-to-crate', 'aria-label': 'Add to crate' }, choice, newName, h('button', { type: 'submit' }, 'Add to crate'), addStatus);
  add.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      let crate = crateList.find((c) => String(c.id) === choice.value);
      if (choice.value === 'new') {
        crate = await api('/v1/crates', { method: 'POST', body: { name: newName.value } });
        crateList.push(crate);
        newName.value = '';
      }
      await api(`/v1/crates/${crate.id}/copies`, { method: 'POST', body: { copyIds: [copy.id] } });
      // In place: drawn again, the page would empty its forms.
      copy.crates.push({ id: crate.id, name: crate.name });
      drawCrates();
      addStatus.textContent = `Added to ${crate.name}.`;
    } catch (failure) { addStatus.textContent = said(failure); }
  });

  const removeStatus = h('p', { class: 'error', role: 'alert' });
  const remove = h('button', { type: 'button', class: 'danger', onclick: async () => {
    const fromDiscogs = copy.discogsInstanceId ? ' A collection sync brings it back while your Discogs collection lists it.' : '';
    if (!window.confirm(`Remove this copy (added ${copy.dateAdded.slice(0, 10)}) from your collection? It leaves its crates too.${fromDiscogs}`)) return;
    try { await api(`/v1/copies/${copy.id}`, { method: 'DELETE' }); removed(item); } catch (failure) { removeStatus.textContent = said(failure); }
  } }, 'Remove from collection');
  const item = h('li', {}, form, inCrates, add, h('p', { class: 'remove-copy' }, remove), removeStatus);
  return item;
}
