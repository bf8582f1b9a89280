// Handlers of the demo `notes` pack: an in-memory note store.
const notes = new Map();
export const handlers = {
  'notes.save': ({ title, body, tags = [] }) => {
    notes.set(title, { body, tags });
    return { saved: title };
  },
  'notes.list': ({ tag }) => ({
    titles: [...notes.entries()].filter(([, n]) => tag === undefined || n.tags.includes(tag)).map(([t]) => t).sort(),
  }),
};
