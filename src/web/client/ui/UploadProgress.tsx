/** An upload's progress (`value` from 0 to 1) under its label, with the percentage beside it. */
export function UploadProgress({ id, label, value }: { id: string; label: string; value: number }) {
  const percent = `${Math.round(value * 100)}%`
  return (
    <div className="progress">
      <label htmlFor={id}>{label}</label>
      <progress id={id} max={1} value={value}>
        {percent}
      </progress>
      <span>{percent}</span>
    </div>
  )
}
