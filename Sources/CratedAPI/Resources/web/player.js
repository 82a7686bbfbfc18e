// The mini-player: shown only while a track is active, following the turntable live over the event
// stream, and sending commands with the revision it shows (a stale one gets 409 and the current state).
import { api } from './api.js';
import { h, cover, duration, said } from './dom.js';

export class MiniPlayer {
  constructor(region) {
    this.region = region;
    this.state = null;
    this.clockOffset = 0;
    this.tick = null;
    this.listeners = new Set();
  }

  /** Calls `listener` with each newer state (a page that shows plays follows them); returns the undo. */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start() {
    this.stop();
    api('/v1/player').then((state) => this.show(state)).catch(() => {});
    this.resume();
  }

  /** Closes the event stream, keeping what is shown. */
  suspend() {
    this.events?.close();
    this.events = null;
  }

  /** Opens the event stream unless it is open; its first event is the current state. */
  resume() {
    if (this.events) return;
    this.events = new EventSource('/v1/player/events');
    this.events.addEventListener('player', (event) => {
      try { this.show(JSON.parse(event.data)); } catch { /* a malformed event changes nothing */ }
    });
  }

  stop() {
    this.events?.close();
    this.events = null;
    clearInterval(this.tick);
    this.state = null;
    this.region.hidden = true;
    this.region.replaceChildren();
    document.body.classList.remove('has-player');
  }

  show(state) {
    if (this.state && state.revision < this.state.revision) return;
    const changed = state.revision !== this.state?.revision;
    this.state = state;
    this.clockOffset = Date.now() - state.serverTimeMs;
    if (changed) for (const listener of this.listeners) listener(state);
    clearInterval(this.tick);
    if (!state.hasActiveTrack) {
      this.region.hidden = true;
      this.region.replaceChildren();
      document.body.classList.remove('has-player');
      return;
    }
    this.render();
    this.region.hidden = false;
    document.body.classList.add('has-player');
    if (state.isPlaying) this.tick = setInterval(() => this.updatePosition(), 1000);
  }

  position() {
    const state = this.state;
    if (!state?.isPlaying) return state?.positionMs ?? 0;
    const elapsed = Date.now() - this.clockOffset - state.serverTimeMs;
    const position = (state.positionMs ?? 0) + Math.max(0, elapsed);
    return state.durationMs ? Math.min(position, state.durationMs) : position;
  }

  /** Sends a command; a refusal other than a stale revision is thrown, for the caller to say why. */
  async command(name, body = {}) {
    try {
      this.show(await api(`/v1/player/${name}`, { method: 'POST', body: { ...body, expectedRevision: this.state?.revision } }));
    } catch (error) {
      // Every refusal carries the current state; only another device moving first is not news.
      if (error.body?.current) this.show(error.body.current);
      if (error.code !== 'revision_conflict') throw error;
    }
  }

  render() {
    const state = this.state;
    // The controls are drawn anew: the keyboard stays on the one it was on (Play and Pause are one).
    const focused = this.region.contains(document.activeElement) ? document.activeElement.dataset.control : undefined;
    const side = state.side ? `Side ${state.side}` : '';
    // trackIndex counts from 1, as the side's tracks are numbered.
    const count = state.trackCount ? ` · ${state.trackIndex} of ${state.trackCount}` : '';
    this.range = h('input', {
      type: 'range', min: 0, max: state.durationMs ?? 0, step: 1000, value: this.position(),
      'aria-label': 'Position', disabled: !state.durationMs || state.needsFlip, dataset: { control: 'position' },
      onchange: (event) => this.command('seek', { positionMs: Number(event.target.value) }).catch((error) => this.refused(error)),
    });
    this.elapsed = h('span', { class: 'time' }, duration(this.position()));
    const button = (label, name, text, disabled = false, control = name) =>
      h('button', { type: 'button', 'aria-label': label, disabled, dataset: { control },
        onclick: () => this.command(name).catch((error) => this.refused(error)) }, text);
    // The record on the turntable opens its page, as a history row does.
    const album = state.album ? h('a', { href: `/collection/albums/${state.album.id}` }, state.album.title) : null;
    this.region.replaceChildren(
      cover(state.artwork, ''),
      h('div', { class: 'now' },
        h('p', { class: 'track' }, h('span', { class: 'position' }, state.track?.position ?? ''), ' ', state.track?.title ?? ''),
        h('p', { class: 'detail' }, state.artist ?? '', state.artist && album ? ' — ' : '', album, side ? ` · ${side}${count}` : ''),
        h('div', { class: 'progress' }, this.elapsed, this.range, h('span', { class: 'time' }, duration(state.durationMs)))),
      h('div', { class: 'controls' },
        button('Previous', 'previous', '|◀', state.needsFlip),
        state.isPlaying ? button('Pause', 'pause', '❚❚', false, 'play') : button('Play', 'resume', '▶', state.needsFlip, 'play'),
        button('Next', 'next', '▶|', state.needsFlip),
        button('Flip', 'flip', state.needsFlip ? 'Flip ↻' : '↻'),
        button('Stop', 'stop', '■')));
    // A control the end of a side disables (Next, Play) hands the keyboard to Flip.
    if (focused) {
      (this.region.querySelector(`[data-control="${focused}"]:not(:disabled)`)
        ?? (state.needsFlip ? this.region.querySelector('[data-control="flip"]') : null))?.focus();
    }
    this.region.dataset.state = state.state;
    this.region.dataset.revision = String(state.revision);
  }

  /** A command of the player's own refused: said in place of the album line until the next state. */
  refused(error) {
    const detail = this.region.querySelector('.detail');
    if (detail) { detail.setAttribute('role', 'alert'); detail.textContent = said(error); }
  }

  updatePosition() {
    if (!this.range) return;
    const position = this.position();
    if (document.activeElement !== this.range) this.range.value = String(position);
    this.elapsed.textContent = duration(position);
  }
}
