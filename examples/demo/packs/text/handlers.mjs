// Handlers of the demo `text` pack: one function per typeId.
export const handlers = {
  'text.uppercase': ({ text }) => ({ text: String(text).toUpperCase() }),
  'text.word-count': ({ text }) => ({ words: String(text).split(/\s+/).filter(Boolean).length }),
};
