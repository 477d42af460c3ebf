/** Text for an SVG chart's elements and attributes, with XML's special characters escaped. */
export const xmlText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
