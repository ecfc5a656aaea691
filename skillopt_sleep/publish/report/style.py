"""The report's one stylesheet, inlined into the page so it needs no assets.

Class names here are the ones ``html`` writes (cards, pills, diff lines, the Δ bars) and
the ones ``svg`` writes inside the score plots.
"""

CSS = """
:root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#fff;--soft:#f8fafc;--ok:#15803d;
--bad:#b91c1c;--warn:#92400e;--val:#2563eb;--test:#c2410c}
*{box-sizing:border-box}
body{margin:0;background:var(--soft);color:var(--fg);font:15px/1.5 system-ui,-apple-system,
"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1080px;margin:0 auto;padding:28px 28px 60px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:36px 0 12px;padding-bottom:6px;
border-bottom:2px solid var(--line)}h3{font-size:16px;margin:24px 0 8px}
.meta{color:var(--muted);font-size:13px}.meta code{font-size:12px}
.sample{color:var(--muted);font-size:12px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin:18px 0}
.card{background:var(--bg);border:1px solid var(--line);border-radius:10px;padding:14px 16px}
.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card .v{font-size:24px;font-weight:650;margin-top:2px}.card .s{color:var(--muted);font-size:13px}
.up{color:var(--ok)}.down{color:var(--bad)}.flat{color:var(--muted)}
table{border-collapse:collapse;width:100%;background:var(--bg);font-size:14px}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.bad{color:var(--bad);font-weight:650}
.callout{border-left:4px solid #d97706;background:#fffbeb;padding:10px 14px;margin:12px 0;
border-radius:0 8px 8px 0}.callout.stop{border-color:var(--bad);background:#fef2f2}
.skill{background:var(--bg);border:1px solid var(--line);border-radius:12px;padding:4px 22px 22px;
margin-top:28px}.skill>h2{border:0;margin-top:18px}
.pill{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;
vertical-align:middle}.pill.ok{background:#dcfce7;color:var(--ok)}
.pill.no{background:#fee2e2;color:var(--bad)}.pill.mute{background:#f1f5f9;color:#475569}
.pill.op{background:#e0e7ff;color:#3730a3}
pre.diff{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:8px 0;
overflow-x:auto;line-height:1.45}
pre.diff span{display:block;padding:0 12px;white-space:pre-wrap;word-break:break-word}
.d-add{background:#e6ffec;color:#05501f}.d-del{background:#ffebe9;color:#82071e}
.d-hunk{background:#ddf4ff;color:#0550ae}.d-meta{color:var(--muted);font-weight:600}
.edit{border:1px solid var(--line);border-radius:10px;padding:12px 14px;margin:10px 0;
background:var(--bg)}.edit.accepted{border-left:4px solid var(--ok)}
.edit.rejected{border-left:4px solid var(--bad)}
.edit-text{font-size:15px;margin:6px 0;padding:6px 10px;background:var(--soft);border-radius:6px;
white-space:pre-wrap;word-break:break-word}.anchor{color:var(--muted);font-size:13px}
.stats{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;margin:8px 0}
.stats b{font-variant-numeric:tabular-nums}.why{font-size:14px}
.bar{position:relative;height:12px;min-width:160px;background:#f1f5f9;border-radius:3px}
.bar:before{content:"";position:absolute;left:50%;top:-2px;bottom:-2px;
border-left:1px solid #94a3b8}
.bar i{position:absolute;top:0;bottom:0;border-radius:2px}.bar i.pos{left:50%;background:#22c55e}
.bar i.neg{right:50%;background:#ef4444}
details{margin:6px 0}summary{cursor:pointer}
details.task{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:6px 12px}
details.task[open]{padding-bottom:12px}
.answers{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin-top:10px}
.answers pre{white-space:pre-wrap;word-break:break-word;background:var(--soft);margin:4px 0;
padding:8px 10px;border-radius:6px;border:1px solid var(--line);max-height:420px;overflow:auto}
.answers .rat{font-size:12px;color:var(--muted)}
figure{margin:10px 0;background:var(--bg);border:1px solid var(--line);border-radius:10px;
padding:8px}
figcaption{font-size:13px;color:var(--muted);padding:0 8px 4px}
svg.plot{width:100%;height:auto;display:block;font-family:inherit}
svg .axis{stroke:#475569;stroke-width:1}svg .grid{stroke:#e5e7eb;stroke-width:1}
svg .tick{font-size:12px;fill:#475569}svg .axis-title{font-size:13px;fill:#334155;font-weight:600}
svg .legend{font-size:13px;fill:#334155}svg .value{font-size:12px;font-weight:650}
svg .tonight{fill:#fef3c7}
svg .gap-band{fill:#e2e8f0;fill-opacity:.7;stroke:#94a3b8;stroke-dasharray:3 3}
svg .gap.failed .gap-band{fill:#fee2e2;stroke:var(--bad)}
svg .gap-label{font-size:11px;font-weight:650;fill:#475569}
svg .gap.failed .gap-label{fill:var(--bad)}
.callout.failed{border-color:var(--bad);background:#fef2f2}
.callout.warn{border-color:#d97706;background:#fffbeb}
.pill.fail{background:#fee2e2;color:var(--bad)}.pill.abst{background:#fef3c7;color:var(--warn)}
@media print{body{background:#fff}details{display:block}}
"""
