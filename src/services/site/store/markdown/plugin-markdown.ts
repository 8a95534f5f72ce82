import { imageLink, type ImageLinkRule } from '../image-links.js';
import { createMarkdown, type MarkdownNode } from './markdown-tree.js';

// The site's Markdown. Images follow the rule of a plugin's icon and screenshots
// (store/image-links.ts): every browser that shows the page fetches them with the
// site's cookie, so they may not point at the site itself outside its file folders.
// Until the site has told its own address (useImageLinkRule, at start-up), images
// on another https host are the only ones kept.

let rule: ImageLinkRule = { siteHost: '', ownHostImages: [] };
let onlyOtherHosts = true;

export function useImageLinkRule(siteRule: ImageLinkRule): void {
  rule = siteRule;
  onlyOtherHosts = false;
}

function imageSource(src: string): string | null {
  try {
    const kept = imageLink('image', src, rule);
    return onlyOtherHosts && kept.startsWith('/') ? null : kept;
  } catch {
    return null;
  }
}

const render = createMarkdown({ imageSource });

export function markdownTree(source: string): MarkdownNode[] {
  return render(source);
}
