/** A one-page PDF whose /OpenAction runs `app.alert(message)` when a viewer opens it. */
export function scriptedPdf(message = 'from the pdf', beacon?: string) {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
    `<< /Type /Action /S /JavaScript /JS (${beacon ? `app.launchURL\\('${beacon}/launch', true\\); this.submitForm\\('${beacon}/submit'\\); ` : ''}app.alert\\('${message}'\\);) >>`,
  ]
  let out = '%PDF-1.7\n'
  const offsets: number[] = []
  objects.forEach((body, i) => {
    offsets.push(out.length)
    out += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = out.length
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new TextEncoder().encode(out)
}
