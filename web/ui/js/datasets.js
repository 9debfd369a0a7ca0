// The table's datasets (key, title, records), asked once per page load.
import { api } from './api.js';

let list = null;
export function datasetTitles(signal) {
  if (!list) {
    list = api('/ui/api/datasets', { signal }).catch((e) => { list = null; throw e; });
  }
  return list;
}
