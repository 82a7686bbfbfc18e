// An album grid laid out by crated: the page reports the window's size and pixel ratio, crated
// resolves the layout (/v1/layout's rules), and the page draws exactly the columns, spacing and
// padding it was given. Pages follow cursors both ways, the jump bar starts a page at a letter
// (`at=`), a resize re-resolves keeping the album at the top (`around=`), and a reload returns to it.
import { api, query } from './api.js';
import { h, cover, message } from './dom.js';


/** The window's pixel ratio as the API's `scale` (1 to 3, to the half), so covers come at the pixels drawn. */
export function screenScale() {
  return Math.min(3, Math.max(1, Math.round((window.devicePixelRatio || 1) * 2) / 2));
}

/**
 * The container crated lays out for: the page's width and height in CSS pixels (points), and its
 * pixel ratio. The root's client size leaves out the scrollbar's reserved gutter, which the
 * window's inner size counts: the grid has only the rest to draw in.
 */
export function windowLayoutParameters() {
  const root = document.documentElement;
  return { width: root.clientWidth, height: root.clientHeight, scale: screenScale() };
}

/** A jump-bar label as the narrow bar shows it and as it is read out (`1970s`: `70s`, `the 1970s`). */
export function sectionLabel(letter, sort) {
  if (sort === 'year') return letter === '?' ? { short: '?', spoken: 'unknown year' } : { short: letter.slice(2), spoken: `the ${letter}` };
  if (sort === 'dateAdded') return letter === '?' ? { short: '?', spoken: 'unknown date' } : { short: `’${letter.slice(2)}`, spoken: `added in ${letter}` };
  if (sort === 'rating') return letter === '?' ? { short: '?', spoken: 'unrated' } : { short: `${letter}★`, spoken: letter === '1' ? '1 star' : `${letter} stars` };
  return { short: letter, spoken: letter };
}

export class AlbumGrid {
  /**
   * @param endpoint `/v1/grid/collection`, `/v1/grid/crates/3`, ...
   * @param params sort and filters, as the API takes them
   * @param options.link (albumId) -> the page path an item opens
   * @param options.label the list's accessible name
   */
  constructor(endpoint, params, { link, label, empty = 'No albums here.' }) {
    this.endpoint = endpoint;
    this.params = params;
    this.link = link;
    this.empty = empty;
    this.storageKey = `grid-top:${location.pathname}${location.search}`;
    this.list = h('ol', { class: 'grid', 'aria-label': label });
    this.jump = h('nav', { class: 'jump', 'aria-label': 'Jump to letter', hidden: true, onkeydown: (event) => this.jumpKey(event) });
    this.status = h('p', { class: 'grid-status', role: 'status' });
    this.top = h('div', { class: 'sentinel', 'aria-hidden': 'true' });
    this.bottom = h('div', { class: 'sentinel', 'aria-hidden': 'true' });
    this.element = h('section', { class: 'grid-view' }, this.jump, this.top, this.list, this.bottom, this.status);
    this.generation = 0;
    this.loading = { next: false, previous: false };
    this.failures = 0;
    this.retryTimer = 0;
    this.observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        if (entry.target === this.bottom) this.loadNext();
        else if (entry.target === this.top) this.loadPrevious();
      }
    }, { rootMargin: '800px 0px' });
    // The bar's height changes with the window and with the mini-player: its letters are fitted anew.
    this.jumpResize = new ResizeObserver(() => { if (this.sections) this.renderSections(this.sections); });
    this.onResize = () => {
      // The window has already reflowed the old layout: the album to keep is the one a load is
      // bringing back (the scrollbar's gutter appears while it is asked for), else the one that was
      // at the top before, noted as the reader scrolled, not the one there now.
      if (this.anchor === undefined) this.anchor = this.restoring ?? this.topAlbum ?? null;
      clearTimeout(this.resizeTimer);
      this.resizeTimer = setTimeout(() => this.relayout(), 150);
    };
    // The page's width also changes without a window resize: the scrollbar's gutter appears once
    // the page is laid out, after the first page was already asked for at the wider size.
    this.widthResize = new ResizeObserver(() => {
      const asked = this.requestedSize ?? this.size;
      if (asked && windowLayoutParameters().width !== asked.width) this.onResize();
    });
    this.onScroll = () => {
      if (this.scrollFrame) return;
      this.scrollFrame = requestAnimationFrame(() => { this.scrollFrame = 0; if (this.anchor === undefined) this.rememberTop(); });
    };
  }

  /** Draws the first page: where the last visit left off when there is one, else the start. */
  async start() {
    this.jumpResize.observe(this.jump);
    this.widthResize.observe(this.element);
    window.addEventListener('resize', this.onResize);
    window.addEventListener('scroll', this.onScroll, { passive: true });
    const saved = Number(sessionStorage.getItem(this.storageKey));
    if (saved > 0) {
      try { await this.load({ around: saved }, saved); return; } catch { /* the album left the grid: start over */ }
    }
    try {
      await this.load({});
    } catch (error) {
      // Refused (a bad filter, a grid that is gone): the page says why. Not reached (crated down,
      // the network gone, crated busy): said and tried again, as any other page.
      if (error.status !== undefined && error.status < 500) throw error;
      this.failed(error, () => this.reload({}));
    }
  }

  stop() {
    this.generation++;
    this.observer.disconnect();
    this.jumpResize.disconnect();
    this.widthResize.disconnect();
    window.removeEventListener('resize', this.onResize);
    window.removeEventListener('scroll', this.onScroll);
    clearTimeout(this.resizeTimer);
    clearTimeout(this.retryTimer);
  }

  /**
   * A page that did not load (crated down, the network gone): says so, and tries again after 1 s,
   * then 2, 4... up to 30 s, or at once from its button. Until then nothing else asks for a page.
   */
  failed(error, retry) {
    const delay = Math.min(30_000, 1000 * 2 ** this.failures);
    this.failures++;
    const again = () => {
      clearTimeout(this.retryTimer);
      this.retryTimer = 0;
      this.status.replaceChildren();
      retry();
    };
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(again, delay);
    this.status.replaceChildren(`Could not load the albums (${error.message}). Trying again in ${Math.round(delay / 1000)} s. `,
      h('button', { type: 'button', onclick: again }, 'Retry'));
  }

  /** load() for the reader (a letter, a resize): a failure is shown and retried instead of thrown. */
  async reload(position, albumId) {
    const generation = this.generation + 1; // the one load() takes
    await this.attempt(generation, () => this.load(position, albumId), () => this.reload(position, albumId));
  }

  /** Runs a page load; a failure is shown and retried instead of thrown. */
  async attempt(generation, load, retry) {
    try {
      await load();
      if (generation === this.generation) this.failures = 0;
      return true;
    } catch (error) {
      if (generation === this.generation) this.failed(error, retry);
      return false;
    }
  }

  /**
   * A page laid out for `size`: a new layout (load) measures the window; pages that continue it
   * (cursors) keep the size the drawn grid was resolved for, so its rows stay whole until a resize
   * resolves them again.
   */
  request(position, size = this.size) {
    return api(this.endpoint + query({ ...this.params, ...size, ...position, sections: position.cursor ? undefined : true }));
  }

  /** Replaces the grid with the page at `position`, then brings `albumId` (else the top) into view. */
  async load(position, albumId) {
    const generation = ++this.generation;
    this.restoring = albumId;
    try {
      await this.draw(generation, position, albumId);
    } finally {
      // Brought back or failed: a resize from now keeps what the reader sees.
      if (generation === this.generation) this.restoring = undefined;
    }
  }

  async draw(generation, position, albumId) {
    this.observer.disconnect();
    clearTimeout(this.retryTimer);
    this.retryTimer = 0;
    const size = windowLayoutParameters();
    this.requestedSize = size;
    const page = await this.request(position, size);
    if (generation !== this.generation) return;
    this.size = size;
    this.applyLayout(page.layout);
    this.total = page.total;
    this.first = page.start;
    this.next = page.next ?? null;
    this.previous = page.previous ?? null;
    this.list.replaceChildren(...page.items.map((item) => this.cell(item)));
    // For the benchmark (bench-web): when the first rows are on screen after navigation.
    if (!performance.getEntriesByName('crated:grid-drawn').length) requestAnimationFrame(() => performance.mark('crated:grid-drawn'));
    this.list.dataset.total = String(page.total);
    this.renderSections(page.sections);
    this.status.replaceChildren(page.total === 0 ? message(this.empty) : '');
    const target = albumId ? this.list.querySelector(`li[data-album-id="${albumId}"]`)
      : position.at !== undefined ? this.list.firstElementChild : null;
    if (target) {
      // A page is a screenful or two: the rows after it come first, so the window can scroll the
      // album to its top instead of stopping at the end of a short page.
      while (this.next && !canScrollToTop(target)) {
        if (!(await this.appendNext(generation))) return;
      }
      scrollToItem(target);
    }
    this.observer.observe(this.bottom);
    this.observer.observe(this.top);
    this.rememberTop();
  }

  applyLayout(layout) {
    this.layout = layout;
    // On the view, not the list, so that the jump bar beside the list sees the padding too.
    const style = this.element.style;
    style.setProperty('--columns', String(layout.columns));
    style.setProperty('--spacing', `${layout.spacing}px`);
    style.setProperty('--padding', `${layout.padding}px`);
    // A phone's padding leaves the bar room for a letter: longer labels are drawn smaller.
    this.jump.classList.toggle('narrow', layout.padding < 24);
    this.list.dataset.columns = String(layout.columns);
    this.list.dataset.environment = layout.environment;
    this.list.dataset.width = String(this.size.width);
    this.list.dataset.height = String(this.size.height);
    document.documentElement.dataset.environment = layout.environment;
  }

  /** The page after the last drawn; false when the grid was replaced meanwhile. */
  async appendNext(generation) {
    const page = await this.request({ cursor: this.next });
    if (generation !== this.generation) return false;
    const seen = this.list.lastElementChild ? Number(this.list.lastElementChild.dataset.position) : -1;
    this.list.append(...page.items.filter((item) => item.position > seen).map((item) => this.cell(item)));
    this.next = page.next ?? null;
    this.total = page.total;
    return true;
  }

  async loadNext() {
    if (!this.next || this.loading.next || this.retryTimer) return;
    this.loading.next = true;
    const generation = this.generation;
    const loaded = await this.attempt(generation, () => this.appendNext(generation), () => this.loadNext());
    this.loading.next = false;
    // Observed anew only after a success: a failed page waits for its retry.
    if (loaded && generation === this.generation) this.reobserve(this.bottom);
  }

  async loadPrevious() {
    if (!this.previous || this.loading.previous || this.retryTimer) return;
    this.loading.previous = true;
    const generation = this.generation;
    const loaded = await this.attempt(generation, () => this.prependPrevious(generation), () => this.loadPrevious());
    this.loading.previous = false;
    if (loaded && generation === this.generation) this.reobserve(this.top);
  }

  /** The page before the first drawn, keeping what the reader was looking at where it was. */
  async prependPrevious(generation) {
    const page = await this.request({ cursor: this.previous });
    if (generation !== this.generation) return;
    const firstCell = this.list.firstElementChild;
    const seen = firstCell ? Number(firstCell.dataset.position) : Infinity;
    const before = firstCell?.getBoundingClientRect().top ?? 0;
    this.list.prepend(...page.items.filter((item) => item.position < seen).map((item) => this.cell(item)));
    if (firstCell) window.scrollBy(0, firstCell.getBoundingClientRect().top - before);
    this.previous = page.previous ?? null;
  }

  /** Observing anew reports the sentinel's state now: it may have left and come back between frames. */
  reobserve(sentinel) {
    this.observer.unobserve(sentinel);
    this.observer.observe(sentinel);
  }

  /** A new window size: crated resolves the layout again, and the album at the top stays there. */
  async relayout() {
    const size = windowLayoutParameters();
    const top = this.anchor;
    try {
      // A resize event can arrive after a load already measured the new size: nothing to do then.
      const current = this.requestedSize ?? this.size;
      if (current && size.width === current.width && size.height === current.height && size.scale === current.scale) return;
      await this.reload(top ? { around: top } : {}, top);
    } finally {
      if (this.anchor === top) this.anchor = undefined;
    }
  }

  /**
   * The albums changed order under the grid (its crate rearranged from the panel above it): drawn
   * again from its start, without scrolling the window away from the panel.
   */
  async redraw() {
    await this.reload({});
  }

  topItem() {
    const headerBottom = document.getElementById('bar')?.getBoundingClientRect().bottom ?? 0;
    for (const item of this.list.children) {
      if (item.getBoundingClientRect().bottom > headerBottom + 1) return Number(item.dataset.albumId);
    }
    return null;
  }

  /** The link of the first album whose cell starts below the bar: where the keyboard enters the grid. */
  firstCellInView() {
    const headerBottom = document.getElementById('bar')?.getBoundingClientRect().bottom ?? 0;
    for (const item of this.list.children) {
      if (item.getBoundingClientRect().top >= headerBottom - 1) return item.querySelector('a');
    }
    return null;
  }

  rememberTop() {
    const top = window.scrollY > 0 ? this.topItem() : null;
    this.topAlbum = top;
    if (top) sessionStorage.setItem(this.storageKey, String(top));
    else sessionStorage.removeItem(this.storageKey);
  }

  renderSections(sections) {
    this.sections = sections;
    if (!sections || sections.length < 2) { this.jump.hidden = true; this.jump.replaceChildren(); return; }
    this.jump.hidden = false;
    // The letters are drawn anew for each page a letter starts: the keyboard stays on the one pressed.
    const focused = this.jump.contains(document.activeElement) ? document.activeElement.textContent : null;
    const sort = this.params.sort;
    this.jump.setAttribute('aria-label', { year: 'Jump to decade', dateAdded: 'Jump to year added', rating: 'Jump to rating' }[sort] ?? 'Jump to letter');
    const draw = (shown) => this.jump.replaceChildren(h('ul', {}, shown.map((section) => {
      const { short, spoken } = sectionLabel(section.letter, sort);
      return h('li', {}, h('button', {
        type: 'button', 'aria-label': `Jump to ${spoken}`, title: spoken, class: short.length > 2 ? 'long' : undefined,
        onclick: () => { this.jumpCurrent = short; this.reload({ at: section.position }); },
      }, short));
    })));
    draw(sections);
    // A bar too short for every letter (a phone held sideways, the player showing) keeps every
    // second or third, as iOS's index does, rather than scrolling or shrinking them past reading.
    const row = this.jump.querySelector('button').getBoundingClientRect().height;
    const fits = Math.max(2, Math.floor(this.jump.clientHeight / row));
    if (sections.length > fits) {
      const step = Math.ceil(sections.length / fits);
      draw(sections.filter((_, index) => index % step === 0));
    }
    // One Tab stop for the whole bar (the letter last used, else the first); arrows move along it.
    const buttons = [...this.jump.querySelectorAll('button')];
    const current = buttons.find((button) => button.textContent === (focused ?? this.jumpCurrent)) ?? buttons[0];
    for (const button of buttons) button.tabIndex = button === current ? 0 : -1;
    if (focused) current.focus({ preventScroll: true });
  }

  /** Arrow keys, Home and End on the jump bar: the next letter takes the bar's one Tab stop. */
  jumpKey(event) {
    const buttons = [...this.jump.querySelectorAll('button')];
    const index = buttons.indexOf(document.activeElement);
    if (index < 0) return;
    // Tab goes on to the albums in view (those jumped to), not to the first loaded.
    if (event.key === 'Tab' && !event.shiftKey) {
      const inView = this.firstCellInView();
      if (inView) { event.preventDefault(); inView.focus({ preventScroll: true }); }
      return;
    }
    const target = { ArrowDown: index + 1, ArrowRight: index + 1, ArrowUp: index - 1, ArrowLeft: index - 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const next = buttons[Math.max(0, Math.min(buttons.length - 1, target))];
    for (const button of buttons) button.tabIndex = button === next ? 0 : -1;
    this.jumpCurrent = next.textContent;
    next.focus();
  }

  cell(item) {
    return h('li', { 'aria-label': item.title, dataset: { position: String(item.position), albumId: String(item.albumId) } },
      h('a', { href: this.link(item.albumId), class: 'cell' },
        cover(item.artwork, ''),
        h('span', { class: 'title' }, item.title),
        h('span', { class: 'artist' }, cellDetail(item, this.params.sort))));
  }
}

/**
 * A cell's second line: the artist, led by what the grid is sorted by when that is not the artist or
 * the title (where the reader could not see the order otherwise), and the copies when more than one.
 */
function cellDetail(item, sort) {
  let lead = null;
  if (sort === 'year') lead = item.year ? String(item.year) : 'Year unknown';
  // The day as Discogs gives it, as the copy's own page shows it: not moved into this browser's zone.
  else if (sort === 'dateAdded' && item.dateAdded) lead = `Added ${item.dateAdded.slice(0, 10)}`;
  // One star and the number: a row of stars would be read out star by star.
  else if (sort === 'rating') lead = item.rating ? `★ ${item.rating}` : 'Not rated';
  const copies = item.copyCount > 1 ? `${item.copyCount} copies` : null;
  return [lead, item.artist || null, copies].filter(Boolean).join(' · ');
}

function canScrollToTop(element) {
  const header = document.getElementById('bar')?.getBoundingClientRect().height ?? 0;
  const y = element.getBoundingClientRect().top + window.scrollY - header - 8;
  return document.documentElement.scrollHeight - window.innerHeight >= y;
}

function scrollToItem(element) {
  if (!element) return;
  const header = document.getElementById('bar')?.getBoundingClientRect().height ?? 0;
  const y = element.getBoundingClientRect().top + window.scrollY - header - 8;
  window.scrollTo({ top: Math.max(0, y), behavior: 'instant' });
}
