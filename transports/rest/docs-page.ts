/**
 * The /docs page: a self-contained HTML reference rendered from /v1/openapi.json in the browser
 * (no CDN assets, so it works offline and under a strict CSP).
 */
export const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cairn API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1f2328}
h1{margin-bottom:0}code,pre{font:13px ui-monospace,monospace;background:#f6f8fa;border-radius:4px}
pre{padding:.6rem;overflow:auto}details{border:1px solid #d0d7de;border-radius:6px;margin:.4rem 0;padding:.3rem .7rem}
summary{cursor:pointer}.m{display:inline-block;width:4.5rem;font-weight:600}.GET{color:#0969da}.POST{color:#1a7f37}
.PUT{color:#9a6700}.DELETE{color:#cf222e}.auth{color:#57606a;font-size:13px}
</style></head><body>
<h1>Cairn API</h1><p>Generated from <a href="/v1/openapi.json">/v1/openapi.json</a>. Send credentials as
<code>Authorization: Bearer …</code>: an API key (<code>cairn_…</code>) or, for <code>/v1/api-keys</code>, a dashboard token.</p>
<div id="routes">Loading…</div>
<script>
fetch('/v1/openapi.json').then(r=>r.json()).then(doc=>{
  const root=document.getElementById('routes');root.textContent='';
  for(const [path,ops] of Object.entries(doc.paths)){for(const [method,op] of Object.entries(ops)){
    const d=document.createElement('details');const s=document.createElement('summary');
    const m=document.createElement('span');m.className='m '+method.toUpperCase();m.textContent=method.toUpperCase();
    const a=document.createElement('span');a.className='auth';a.textContent=' '+(op.security.length?Object.keys(op.security[0])[0]:'no auth');
    s.append(m,document.createTextNode(path),a);const p=document.createElement('p');p.textContent=op.summary;
    const pre=document.createElement('pre');pre.textContent=JSON.stringify({parameters:op.parameters,requestBody:op.requestBody?.content['application/json'].schema,responses:op.responses},null,2);
    d.append(s,p,pre);root.append(d);}}
});
</script></body></html>`;
