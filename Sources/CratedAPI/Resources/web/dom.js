// Building elements without HTML strings: text is always text, so nothing from the API can become
// markup, and the Content-Security-Policy needs no inline script or style.

/** h('a', {href, class, onclick, aria-label}, child, ...): an element with attributes and children. */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (key === 'class') element.className = value;
    else if (key === 'dataset') Object.assign(element.dataset, value);
    else if (key === 'value') {
      // Also as the field's default: an edit since is told from what it was drawn with.
      if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) element.defaultValue = String(value);
      element.value = value;
    }
    else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(element) { element.replaceChildren(); return element; }

/** 3:05 from milliseconds; empty for an unknown length. */
export function duration(ms) {
  if (ms === null || ms === undefined) return '';
  const seconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/**
 * A cover: crated's own artwork variant, with its dominant colour as the placeholder while it loads.
 * A URL on another origin is not loaded: the page's Content-Security-Policy allows images from
 * crated only.
 */
export function cover(artwork, label) {
  const box = h('div', { class: 'cover' });
  if (artwork?.color && /^#[0-9a-fA-F]{6}$/.test(artwork.color)) box.style.backgroundColor = artwork.color;
  if (artwork?.url && sameOrigin(artwork.url)) {
    const image = h('img', { src: artwork.url, alt: label ?? '', loading: 'lazy', decoding: 'async' });
    if (artwork.width && artwork.height) { image.width = artwork.width; image.height = artwork.height; }
    box.append(image);
  } else {
    box.classList.add('blank');
  }
  return box;
}

function sameOrigin(url) {
  try { return new URL(url, location.href).origin === location.origin; } catch { return false; }
}

export function message(text, role = 'status') { return h('p', { class: 'message', role }, text); }

/** A refusal shown on its own, as a sentence: crated words its messages to be quoted mid-sentence. */
export function said(error) {
  const text = String(error?.message ?? error);
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
