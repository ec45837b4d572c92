// rehome: save your own GPTs from ChatGPT as one JSON file that rehome imports.
// Paste this into the browser's console on chatgpt.com while signed in.
// It reads (GET only) the list of your GPTs and each GPT by its id, through
// the same backend-api the page itself calls, and saves my-gpts.rehome.json.
// Your ChatGPT token stays in this page: the file does not hold it.
(async () => {
  const session = await (await fetch('/api/auth/session')).json();
  if (!session.accessToken) throw new Error('rehome: sign in to chatgpt.com first, then paste this again.');
  const headers = { Authorization: 'Bearer ' + session.accessToken };
  const get = async (path) => {
    const r = await fetch(path, { headers });
    if (!r.ok) throw new Error('rehome: ' + path + ' answered HTTP ' + r.status);
    return r.json();
  };
  const ids = [];
  for (const base of ['/backend-api/gizmos/discovery/mine', '/public-api/gizmos/discovery/mine']) {
    try {
      let cursor = null;
      do {
        const page = await get(base + '?limit=50' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
        const list = page.list || page;
        for (const it of list.items || []) {
          const g = (it.resource || it).gizmo || it.gizmo || it;
          if (g && g.id && !ids.includes(g.id)) ids.push(g.id);
        }
        cursor = list.cursor || null;
      } while (cursor);
      break;
    } catch (e) {
      console.warn(String(e));
    }
  }
  const items = [];
  for (const id of ids) {
    items.push({ resource: await get('/backend-api/gizmos/' + encodeURIComponent(id)) });
    console.log('rehome: read ' + id + ' (' + items.length + ' of ' + ids.length + ')');
  }
  const file = { saved_by: 'rehome export snippet 1', saved_at: new Date().toISOString(), list: { items } };
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([JSON.stringify(file, null, 1)], { type: 'application/json' }));
  a.download = 'my-gpts.rehome.json';
  document.body.appendChild(a);
  a.click();
  a.remove();
  console.log('rehome: saved ' + items.length + ' GPT(s) to my-gpts.rehome.json: import it with rehome.');
})();
