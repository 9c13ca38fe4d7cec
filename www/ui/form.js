// @ts-check
// What the settings form holds, as data: one input per field of a lab's settings (the
// trainer's fields, in their order), each with its label, its help, the kind of input its
// range asks for and, for a choice, its options. Pure (Node's tests read it); controls.js
// makes the elements.

/**
 * One input of the settings form: the field's key, the element it is (`select` of
 * `options` [value, words], a `checkbox`, or `text` typed as `inputMode`), its label and
 * its help.
 * @typedef {{ key: string, element: 'select' | 'checkbox' | 'text', inputMode?: 'numeric' | 'decimal',
 *   options?: [string, string][], label: string, help: string, live: boolean }} SettingInput
 */

/**
 * The inputs of a lab's settings form.
 * @param {import('../labs/index.js').Field[]} fields @param {Record<string, string>} help
 * @returns {SettingInput[]}
 */
export function settingInputs(fields, help) {
  return fields.map((f) => {
    const common = { key: f.key, label: f.words, help: Object.hasOwn(help, f.key) ? help[f.key] : f.words, live: f.live };
    if (f.kind === 'choice') return { ...common, element: 'select', options: (f.choices ?? []).map((c) => [c.name, c.words]) };
    if (f.kind === 'switch') return { ...common, element: 'checkbox' };
    return { ...common, element: 'text', inputMode: f.kind === 'whole' ? 'numeric' : 'decimal' };
  });
}
