// @ts-check
// Fills the figures that a lab's texts quote ({lab.name}) from the generated figures file
// (figures.js, written from results/ by scripts/figures.js), and remembers each text's
// template so that a test can hold every figure a text carries to that file. Pure.

import { FIGURES } from './figures.js';

/** Each filled text's template, by the filled text. @type {Map<string, string>} */
export const TEMPLATES = new Map();

/** A figure's name in a template: {lab.preset.what}. */
export const NAME = /\{([a-z0-9-]+(?:\.[a-z0-9-]+)+)\}/g;

/**
 * `template` with each {name} replaced by its figure's text.
 * @param {string} template
 * @returns {string}
 * @throws {Error} where the figures file has no such name
 */
export function quote(template) {
  const text = template.replace(NAME, (_, name) => {
    const figure = FIGURES[name];
    if (!figure) throw new Error(`no figure ${name} in www/labs/figures.js (node scripts/figures.js writes it)`);
    return figure.text;
  });
  TEMPLATES.set(text, template);
  return text;
}
