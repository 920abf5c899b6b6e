// STUB (issue 19): the fitting of stored strings to the 2.0.0 XSDs (oss-osn-2.0.0.md §4.4). Owned
// by the OSN 2.0.0 work; the signatures are what the OSS 2.0.0 renderer calls.
import type { ContactView } from '../../../contracts/lookup-answers-v2.js';

/** Told each time a value is cut, replaced or left out so the answer stays valid; counted in ossn_v2_degraded_total{field}. */
export type Degraded = (field: string) => void;

/** A contact of OSS 2.0.0 fitted: tokens collapsed, address lines 35, city 30, country per §4.4. */
export function fitContact(contact: ContactView, degraded: Degraded): ContactView {
  void degraded;
  return contact;
}
