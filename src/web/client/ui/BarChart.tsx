import { useId } from 'react'

export interface ChartSeries {
  key: string
  label: string
}
export interface ChartRow {
  label: string
  /** One value per series (stacked bottom up, in series order). */
  values: number[]
  /** What the table shows per series (defaults to the number). */
  shown?: string[]
}

const H = 180
const PAD_BOTTOM = 28
const PAD_TOP = 8
const PAD_LEFT = 8
const BAND = 44

/**
 * A plain SVG bar chart (issue 54): stacked bars per row, one colour per series, announced as one
 * image with its title and a description; the same numbers stand in the table beside it, which is
 * what a screen reader reads. No canvas, no chart library. Each bar carries `data-value` and the
 * SVG `data-max` / `data-plot-height`, so a test can check the drawing against the table.
 */
export function BarChart({
  title,
  desc,
  categoryLabel,
  series,
  rows,
  max,
  testId,
}: {
  title: string
  desc: string
  categoryLabel: string
  series: ChartSeries[]
  rows: ChartRow[]
  /** The top of the scale (the largest stack when left out). */
  max?: number
  testId?: string
}) {
  const id = useId()
  const top = Math.max(1, max ?? Math.max(0, ...rows.map((r) => r.values.reduce((a, b) => a + b, 0))))
  const plot = H - PAD_BOTTOM - PAD_TOP
  const width = Math.max(240, PAD_LEFT * 2 + Math.max(1, rows.length) * BAND)
  // Category labels under the bars, thinned out when there are many (the table has all of them).
  const every = Math.max(1, Math.ceil(rows.length / 12))
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption className="chart-title">{title}</figcaption>
      <div className="chart-body">
        <svg
          className="chart-svg"
          role="img"
          aria-labelledby={`${id}-t ${id}-d`}
          viewBox={`0 0 ${width} ${H}`}
          width={width}
          height={H}
          data-max={top}
          data-plot-height={plot}
        >
          <title id={`${id}-t`}>{title}</title>
          <desc id={`${id}-d`}>{desc}</desc>
          <line className="chart-axis" x1={PAD_LEFT} x2={width - PAD_LEFT} y1={PAD_TOP + plot} y2={PAD_TOP + plot} />
          {rows.map((r, i) => {
            let base = PAD_TOP + plot
            const x = PAD_LEFT + i * BAND + 6
            return (
              <g key={i}>
                {r.values.map((v, s) => {
                  const h = (Math.max(0, v) / top) * plot
                  base -= h
                  return (
                    <rect
                      key={series[s]?.key ?? s}
                      className={`chart-bar chart-bar-${s}`}
                      x={x}
                      y={base}
                      width={BAND - 12}
                      height={h}
                      data-row={i}
                      data-series={series[s]?.key}
                      data-value={v}
                    />
                  )
                })}
                {i % every === 0 && (
                  <text className="chart-label" x={x + (BAND - 12) / 2} y={H - 10} textAnchor="middle">
                    {r.label}
                  </text>
                )}
              </g>
            )
          })}
        </svg>
        <div className="table-wrap chart-table">
          <table>
            <caption className="sr-only">{title}</caption>
            <thead>
              <tr>
                <th scope="col">{categoryLabel}</th>
                {series.map((s, k) => (
                  <th scope="col" key={s.key}>
                    <span className={`chart-key chart-key-${k}`} aria-hidden="true" /> {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i} data-row={i}>
                  <th scope="row">{r.label}</th>
                  {r.values.map((v, s) => (
                    <td key={s} data-series={series[s]?.key} data-value={v}>
                      {r.shown?.[s] ?? v}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </figure>
  )
}
