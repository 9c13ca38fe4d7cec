// @ts-check
// What a caller of the heatmap passes it: its options, what its axes and values are, and the
// matrix to draw. heatmap.js exports these same types under the same names.

/**
 * @typedef {object} HeatmapOptions
 * @property {string} [title] shown above the cells
 * @property {HeatmapScale} scale what its values are
 * @property {string} [colormap='viridis'] a name from colormapNames
 * @property {HeatmapAxes} axes what its rows and columns are
 * @property {[number, number]} [aspect] the plot's width over its height is kept within
 *   these bounds (cells then are not square); by default cells are square
 */

/**
 * What a heatmap's rows and columns are, in words: each axis's title under or beside the
 * cells, and its name and symbol in the readout (`row`, `r`); and what a marked cell is.
 * @typedef {{ rowTitle: string, colTitle: string, row: [string, string], col: [string, string], mark: string }} HeatmapAxes
 */

/**
 * What a heatmap's values are: `share`, a fraction from 0 to 1 (shown as %, on a scale
 * from 0 to 1 unless told another), or `number` (two decimals of `unit`, on the scale of
 * the values' extent unless told another, and where a fixed scale is wider, the values'
 * own extent beside the legend); `name` says the map in words to assistive technology,
 * `symbol` in the readout, `legend` beside the colour bar.
 * @typedef {{ values: 'share' | 'number', name: string, symbol: string, legend: string, unit?: string }} HeatmapScale
 */

/**
 * @typedef {object} HeatmapData
 * @property {ArrayLike<number>} values rows × cols, row-major: values[t * cols + s]
 * @property {number} rows target steps (t)
 * @property {number} cols source positions (s)
 * @property {readonly string[]} [rowLabels] target token at each t (default: the index)
 * @property {readonly string[]} [colLabels] source token at each s (default: the index)
 * @property {ArrayLike<number>} [rowMarks] for each row, the column of its marked cell
 * @property {ArrayLike<number>} [marked] columns outlined over their whole height
 * @property {readonly [number, number] | null} [range] colour scale [min, max]; default: for
 *   shares [0, 1], for numbers the finite min / max of the values
 */
export {};
