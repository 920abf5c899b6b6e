// The OSN 2.0.0 answer (oss-osn-2.0.0.md §4.3, §4.4): the mapping, and every rendering validated
// with libxml2 (xmllint-wasm) against the untouched official XSDs in wsdl/osn-2.0.0/.
import { readdir, readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';
import { describe, expect, it } from 'vitest';
import type { AddressV2View, CappedAnswer, CappedBatches, ItemV2View, PackageV2View, ShipmentNotificationV2View, ShipmentV2View } from '../../../../../contracts/lookup-answers-v2.js';
import { cappedInOneBatch } from '../../../../../contracts/lookups.js';
import { preProductionProofs, quantityUoms } from '../../../../../contracts/v2-vocabulary.js';
import { includingSchema } from '../../../../../test/xsd/validate.js';
import { answerChunks, type AnswerChunks } from '../../../http/answer-chunks.js';
import { formatDecimal } from '../../../protocol/soap/xml-text.js';
import { OSN_V2_NS, OSN_V2_SHARED_NS } from '../namespaces.js';
import type { OrderShipmentNotificationContent, ShipmentContent } from '../../../v2-core/osn/notification-content.js';
import type { Degraded } from '../../../v2-core/fitting.js';
import { shipmentNotificationV2JsonAsRead, shipmentNotificationV2PayloadAsRead } from './shipment-notification-answer.js';

// --- validation against the official OSN 2.0.0 XSDs (the answer's response element as the document) ---

const XSD_DIR = new URL('../../../../../wsdl/osn-2.0.0/', import.meta.url);
let officialFiles: Promise<XMLFileInfo[]> | undefined;

async function loadOfficialFiles(): Promise<XMLFileInfo[]> {
  const names = (await readdir(XSD_DIR)).filter((name) => name.endsWith('.xsd'));
  return Promise.all(names.map(async (fileName) => ({ fileName, contents: await readFile(new URL(fileName, XSD_DIR), 'utf8') })));
}

/** libxml2's messages for an M:GetOrderShipmentNotificationResponse document; empty when it is valid. */
async function validateOsnV2(xml: string): Promise<string[]> {
  officialFiles ??= loadOfficialFiles();
  const result = await validateXML({
    xml: [{ fileName: 'answer.xml', contents: xml }],
    schema: [includingSchema(OSN_V2_NS, ['GetOrderShipmentNotificationResponse.xsd'])],
    preload: await officialFiles,
    maxMemoryPages: 4096,
  });
  return result.valid ? [] : result.errors.map((error) => error.message);
}

// --- rendering ---

/** What `write` writes of this answer as its batches come (sent as read), and the fields it counted. */
async function written(
  write: (answer: CappedBatches<ShipmentNotificationV2View>, degraded: Degraded) => (out: AnswerChunks) => AsyncIterable<unknown>,
  answer: CappedBatches<ShipmentNotificationV2View>,
): Promise<{ text: string; fields: string[] }> {
  const fields: string[] = [];
  const chunks: Buffer[] = [];
  for await (const chunk of answerChunks(write(answer, (field) => fields.push(field)))) chunks.push(chunk);
  return { text: Buffer.concat(chunks).toString('utf8'), fields };
}

/** The answer written whole: in one batch, as an answer read whole (queryType 1, 2) is sent. */
async function render(orders: ShipmentNotificationV2View[], more = false): Promise<{ xml: string; json: Record<string, unknown>; fields: string[]; jsonFields: string[] }> {
  const answer: CappedAnswer<ShipmentNotificationV2View> = { orders, more };
  const soap = await written(shipmentNotificationV2PayloadAsRead, cappedInOneBatch(answer));
  const jsonWritten = await written(shipmentNotificationV2JsonAsRead, cappedInOneBatch(answer));
  const json = JSON.parse(jsonWritten.text) as Record<string, unknown>;
  // Written notification by notification, the bytes are still one JSON.stringify of the whole body.
  expect(jsonWritten.text).toBe(JSON.stringify(json));
  // Both renderings fit the same content, so they count the same, but for the shipReferences the twin alone shows.
  expect(jsonWritten.fields.filter((field) => field !== 'shipReferences')).toEqual(soap.fields);
  return { xml: soap.text, json, fields: soap.fields, jsonFields: jsonWritten.fields };
}

/** What `write` writes as these batches come, one after another. */
function renderAsRead(
  write: (answer: CappedBatches<ShipmentNotificationV2View>, degraded: Degraded) => (out: AnswerChunks) => AsyncIterable<unknown>,
  batches: ShipmentNotificationV2View[][],
  more: boolean,
): Promise<{ text: string; fields: string[] }> {
  const read = (async function* () {
    yield* batches;
  })();
  return written(write, { more, batches: read });
}

async function expectValid(xml: string): Promise<void> {
  expect(await validateOsnV2(xml)).toEqual([]);
}

// --- views ---

const address = (over: Partial<AddressV2View> = {}): AddressV2View => ({ address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701', ...over });

const pkg = (over: Partial<PackageV2View> = {}): PackageV2View => ({
  id: 1,
  trackingNumber: '1Z999',
  shipmentDate: new Date('2025-03-04T05:06:07.000Z'),
  ...over,
});

const location = (over: Partial<ShipmentV2View> = {}): ShipmentV2View => ({
  id: 1,
  complete: false,
  shipFromAddress: address(),
  shipToAddress: address({ address1: '9 Elm St' }),
  packages: [pkg()],
  ...over,
});

const order = (locations: ShipmentV2View[], purchaseOrderNumber = 'PO-1'): ShipmentNotificationV2View => ({
  purchaseOrderNumber,
  complete: false,
  salesOrders: [{ salesOrderNumber: 'SO-1', complete: false, shipments: locations }],
});

/** The notifications of a JSON answer (an absent array is none). */
function notifications(json: Record<string, unknown>): OrderShipmentNotificationContent[] {
  return (json['OrderShipmentNotificationArray'] as OrderShipmentNotificationContent[] | undefined) ?? [];
}
/** The shipments of the first sales order of the first notification. */
function shipmentsOf(json: Record<string, unknown>): ShipmentContent[] {
  return notifications(json)[0]?.SalesOrderArray[0]?.ShipmentArray ?? [];
}
function onlyShipment(json: Record<string, unknown>): Record<string, unknown> {
  return shipmentsOf(json)[0] as Record<string, unknown>;
}
/** The one package of a rendered single-package answer, as JSON. */
function onlyPackage(json: Record<string, unknown>): Record<string, unknown> {
  return shipmentsOf(json)[0]?.PackageArray[0] as Record<string, unknown>;
}

const OPEN = `<GetOrderShipmentNotificationResponse xmlns="${OSN_V2_NS}" xmlns:shar="${OSN_V2_SHARED_NS}">`;

describe('OSN 2.0.0 answer: full data', () => {
  const full: ShipmentNotificationV2View = {
    purchaseOrderNumber: 'PO-1',
    complete: false,
    salesOrders: [
      {
        salesOrderNumber: 'SO-1',
        complete: true,
        shipments: [
          {
            id: 1,
            complete: true,
            customerPickup: true,
            shipFromAddress: {
              attentionTo: 'Dock 4',
              companyName: 'Acme & Co',
              address1: '1 Factory Rd',
              address2: 'Unit 2',
              address3: 'Bldg 3',
              address4: 'Gate 4',
              city: 'Dallas',
              region: 'TX',
              postalCode: '75001',
              country: 'US',
              email: 'ship@acme.example',
              phone: '+1 555 0100',
            },
            shipToAddress: { address1: '9 High St', city: 'Sydney', region: 'NS', regionV2: 'NSW', postalCode: '2000', country: 'AUS' },
            shipmentDestinationType: 'Commercial',
            packages: [
              {
                id: 7,
                trackingNumber: '1Z999AA10123456784',
                shipmentDate: new Date('2025-03-04T05:06:07.000Z'),
                carrier: 'UPS',
                carrierService: 'Ground',
                shipmentMethod: 'Parcel',
                shippingAccount: 'ACC-1',
                shipmentTerms: 'Prepaid',
                dimUOM: 'Inches',
                length: 12.5,
                width: 8,
                height: 0.0000001,
                weightUOM: 'Pounds',
                weight: 3.25,
                preProductionProof: 'Yes',
                items: [
                  {
                    supplierProductId: 'P-1',
                    supplierPartId: 'P-1-RED',
                    distributorProductId: 'D-1',
                    distributorPartId: 'D-1-R',
                    purchaseOrderLineNumber: '10',
                    quantity: 24,
                    uom: 'DZ',
                  },
                  { supplierProductId: 'P-2', quantity: 1.5 },
                ],
              },
            ],
          },
        ],
      },
    ],
  };

  it('writes every element in XSD order, M elements in the default namespace and S refs as shar:', async () => {
    const { xml, fields } = await render([full]);
    const address1 =
      '<shipFromAddress><shar:attentionTo>Dock 4</shar:attentionTo><shar:companyName>Acme &amp; Co</shar:companyName><shar:address1>1 Factory Rd</shar:address1>' +
      '<shar:address2>Unit 2</shar:address2><shar:address3>Bldg 3, Gate 4</shar:address3><shar:city>Dallas</shar:city><shar:region>TX</shar:region>' +
      '<shar:postalCode>75001</shar:postalCode><shar:country>US</shar:country><shar:email>ship@acme.example</shar:email><shar:phone>+1 555 0100</shar:phone></shipFromAddress>';
    const address2 =
      '<shipToAddress><shar:address1>9 High St</shar:address1><shar:city>Sydney</shar:city><shar:region>NSW</shar:region><shar:postalCode>2000</shar:postalCode><shar:country>AU</shar:country></shipToAddress>';
    const items =
      '<ItemArray><Item><shar:supplierProductId>P-1</shar:supplierProductId><shar:supplierPartId>P-1-RED</shar:supplierPartId><shar:distributorProductId>D-1</shar:distributorProductId>' +
      '<shar:distributorPartId>D-1-R</shar:distributorPartId><purchaseOrderLineNumber>10</purchaseOrderLineNumber><shar:Quantity><shar:value>24</shar:value><shar:uom>DZ</shar:uom></shar:Quantity></Item>' +
      '<Item><shar:supplierProductId>P-2</shar:supplierProductId><shar:Quantity><shar:value>1.5</shar:value><shar:uom>EA</shar:uom></shar:Quantity></Item></ItemArray>';
    const packageXml =
      '<Package><id>7</id><shar:trackingNumber>1Z999AA10123456784</shar:trackingNumber><shipmentDate>2025-03-04T05:06:07.000Z</shipmentDate>' +
      '<shar:Dimension><shar:DimensionSize><shar:dimUOM>Inches</shar:dimUOM><shar:length>12.5</shar:length><shar:width>8</shar:width><shar:height>0.0000001</shar:height></shar:DimensionSize>' +
      '<shar:DimensionWeight><shar:weightUOM>Pounds</shar:weightUOM><shar:weight>3.25</shar:weight></shar:DimensionWeight></shar:Dimension>' +
      '<shar:FreightDetails><shar:carrier>UPS</shar:carrier><shar:service>Ground</shar:service></shar:FreightDetails>' +
      `<shar:shippingAccount>ACC-1</shar:shippingAccount><shar:shipmentTerms>Prepaid</shar:shipmentTerms>${items}<preProductionProof>Yes</preProductionProof></Package>`;
    expect(xml).toBe(
      `${OPEN}<OrderShipmentNotificationArray><OrderShipmentNotification><shar:purchaseOrderNumber>PO-1</shar:purchaseOrderNumber><purchaseOrderShippedInFull>false</purchaseOrderShippedInFull>` +
        '<SalesOrderArray><SalesOrder><shar:salesOrderNumber>SO-1</shar:salesOrderNumber><salesOrderShippedInFull>true</salesOrderShippedInFull><ShipmentArray><Shipment>' +
        `<destinationShippedInFull>true</destinationShippedInFull><customerPickup>true</customerPickup>${address1}${address2}<shipmentDestinationType>Commercial</shipmentDestinationType>` +
        `<PackageArray>${packageXml}</PackageArray></Shipment></ShipmentArray></SalesOrder></SalesOrderArray></OrderShipmentNotification></OrderShipmentNotificationArray>` +
        '</GetOrderShipmentNotificationResponse>',
    );
    // Only the alpha-3 country was replaced.
    expect(fields).toEqual(['country']);
    await expectValid(xml);
  });

  it('gives the JSON twin the same content: arrays named XArray, native numbers and booleans, no key for absent values', async () => {
    const { json } = await render([full]);
    expect(json).toEqual({
      OrderShipmentNotificationArray: [
        {
          purchaseOrderNumber: 'PO-1',
          purchaseOrderShippedInFull: false,
          SalesOrderArray: [
            {
              salesOrderNumber: 'SO-1',
              salesOrderShippedInFull: true,
              ShipmentArray: [
                {
                  destinationShippedInFull: true,
                  customerPickup: true,
                  shipFromAddress: {
                    attentionTo: 'Dock 4',
                    companyName: 'Acme & Co',
                    address1: '1 Factory Rd',
                    address2: 'Unit 2',
                    address3: 'Bldg 3, Gate 4',
                    city: 'Dallas',
                    region: 'TX',
                    postalCode: '75001',
                    country: 'US',
                    email: 'ship@acme.example',
                    phone: '+1 555 0100',
                  },
                  shipToAddress: { address1: '9 High St', city: 'Sydney', region: 'NSW', postalCode: '2000', country: 'AU' },
                  shipmentDestinationType: 'Commercial',
                  PackageArray: [
                    {
                      id: 7,
                      trackingNumber: '1Z999AA10123456784',
                      shipmentDate: '2025-03-04T05:06:07.000Z',
                      Dimension: {
                        DimensionSize: { dimUOM: 'Inches', length: 12.5, width: 8, height: 0.0000001 },
                        DimensionWeight: { weightUOM: 'Pounds', weight: 3.25 },
                      },
                      FreightDetails: { carrier: 'UPS', service: 'Ground' },
                      shippingAccount: 'ACC-1',
                      shipmentTerms: 'Prepaid',
                      ItemArray: [
                        {
                          supplierProductId: 'P-1',
                          supplierPartId: 'P-1-RED',
                          distributorProductId: 'D-1',
                          distributorPartId: 'D-1-R',
                          purchaseOrderLineNumber: 10,
                          Quantity: { value: 24, uom: 'DZ' },
                        },
                        { supplierProductId: 'P-2', Quantity: { value: 1.5, uom: 'EA' } },
                      ],
                      preProductionProof: 'Yes',
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(xmlAsJson((await render([full])).xml)).toEqual(jsonAsText(json));
  });

  it('writes the shipment date in UTC whatever the view was made in, and several orders in the given order', async () => {
    const { xml, json } = await render([order([location({ packages: [pkg({ shipmentDate: new Date('2025-03-04T23:30:00-05:00') })] })], 'PO-B'), order([location()], 'PO-A')]);
    expect(xml).toContain('<shipmentDate>2025-03-05T04:30:00.000Z</shipmentDate>');
    expect(notifications(json).map((n) => n.purchaseOrderNumber)).toEqual(['PO-B', 'PO-A']);
    await expectValid(xml);
  });
});

describe('OSN 2.0.0 answer: defaults', () => {
  it('says customerPickup false, preProductionProof Unknown and leaves out what is unknown', async () => {
    const { xml, json, fields } = await render([order([location({ packages: [pkg({ id: 3 })] })])]);
    expect(onlyShipment(json)).toMatchObject({ destinationShippedInFull: false, customerPickup: false });
    expect(onlyShipment(json)).not.toHaveProperty('shipmentDestinationType');
    expect(onlyPackage(json)).toEqual({ id: 3, trackingNumber: '1Z999', shipmentDate: '2025-03-04T05:06:07.000Z', preProductionProof: 'Unknown' });
    expect(xml).toContain('<customerPickup>false</customerPickup>');
    expect(xml).toContain('<preProductionProof>Unknown</preProductionProof></Package>');
    expect(fields).toEqual([]);
    await expectValid(xml);
  });

  it("writes v1's None destination as Other", async () => {
    const { xml, json, fields } = await render([order([location({ shipmentDestinationType: 'None' })])]);
    expect(onlyShipment(json)['shipmentDestinationType']).toBe('Other');
    expect(xml).toContain('<shipmentDestinationType>Other</shipmentDestinationType>');
    expect(fields).toEqual([]);
    await expectValid(xml);
  });
});

describe('OSN 2.0.0 answer: addresses', () => {
  it('cuts long address lines at 35 and the city at 30, counting each cut', async () => {
    const long = address({ address1: 'A'.repeat(64), address2: 'B'.repeat(64), address3: 'C'.repeat(30), address4: 'D'.repeat(64), city: 'E'.repeat(64) });
    const { xml, json, fields } = await render([order([location({ shipFromAddress: long, shipToAddress: long })])]);
    expect(onlyShipment(json)['shipFromAddress']).toEqual({
      address1: 'A'.repeat(35),
      address2: 'B'.repeat(35),
      address3: `${'C'.repeat(30)}, DDD`,
      city: 'E'.repeat(30),
      region: 'IL',
      postalCode: '62701',
    });
    expect(fields).toEqual(['address1', 'address2', 'address3', 'city', 'address1', 'address2', 'address3', 'city']);
    await expectValid(xml);
  });

  it('leaves out blank optional parts and writes a blank required part as "-"', async () => {
    const blank = address({ attentionTo: ' ', companyName: '\t', address2: '  ', address3: '', address4: ' ', email: ' ', phone: '\n', country: ' ', city: '   ' });
    const { xml, json, fields } = await render([order([location({ shipFromAddress: blank })])]);
    expect(onlyShipment(json)['shipFromAddress']).toEqual({ address1: '1 Main St', city: '-', region: 'IL', postalCode: '62701' });
    expect(fields).toEqual(['city']);
    await expectValid(xml);
  });

  it('fits countries: alpha-3 and UK replaced, RS and names left out, the shipment kept', async () => {
    const { xml, json, fields } = await render([
      order([
        location({ shipFromAddress: address({ country: 'usa' }), shipToAddress: address({ country: 'UK' }) }),
        location({ id: 2, shipFromAddress: address({ country: 'RS' }), shipToAddress: address({ country: 'Canada' }) }),
      ]),
    ]);
    const shipments = shipmentsOf(json);
    expect(shipments).toHaveLength(2);
    expect(shipments[0]?.shipFromAddress.country).toBe('US');
    expect(shipments[0]?.shipToAddress.country).toBe('GB');
    expect(shipments[1]?.shipFromAddress).not.toHaveProperty('country');
    expect(shipments[1]?.shipToAddress).not.toHaveProperty('country');
    expect(fields).toEqual(['country', 'country', 'country', 'country']);
    await expectValid(xml);
  });

  it('the XSD itself refuses RS: leaving it out is needed, not a choice', async () => {
    const { xml } = await render([order([location({ shipFromAddress: address({ country: 'US' }) })])]);
    expect((await validateOsnV2(xml.replace('<shar:country>US</shar:country>', '<shar:country>RS</shar:country>'))).join('\n')).toMatch(/country/);
  });
});

describe('OSN 2.0.0 answer: items', () => {
  const withItems = (items: ItemV2View[]) => render([order([location({ packages: [pkg({ items })] })])]);

  it('leaves out an item without supplierProductId or quantity, and ItemArray when none remains', async () => {
    const some = await withItems([{ quantity: 2 }, { supplierProductId: '  ', quantity: 2 }, { supplierProductId: 'P-1' }, { supplierProductId: 'P-2', quantity: 3, uom: 'BX' }]);
    expect(onlyPackage(some.json)['ItemArray']).toEqual([{ supplierProductId: 'P-2', Quantity: { value: 3, uom: 'BX' } }]);
    expect(some.fields).toEqual(['Item', 'Item', 'Item']);
    await expectValid(some.xml);

    const none = await withItems([{ distributorProductId: 'D-1', quantity: 1 }, { supplierProductId: 'P-1' }]);
    expect(onlyPackage(none.json)).not.toHaveProperty('ItemArray');
    expect(none.xml).not.toContain('ItemArray');
    expect(none.fields).toEqual(['Item', 'Item']);
    await expectValid(none.xml);
  });

  it('writes purchaseOrderLineNumber only when it is digits within int32', async () => {
    const lines = ['10', ' 007 ', '2147483647', '2147483648', '12a', '-1', '1.5', ' '];
    const { xml, json, fields } = await withItems(lines.map((purchaseOrderLineNumber, i) => ({ supplierProductId: `P-${i}`, quantity: 1, purchaseOrderLineNumber })));
    const items = onlyPackage(json)['ItemArray'] as { purchaseOrderLineNumber?: number }[];
    expect(items.map((item) => item.purchaseOrderLineNumber)).toEqual([10, 7, 2147483647, undefined, undefined, undefined, undefined, undefined]);
    expect(fields).toEqual(['purchaseOrderLineNumber', 'purchaseOrderLineNumber', 'purchaseOrderLineNumber', 'purchaseOrderLineNumber']);
    expect(xml).toContain('<purchaseOrderLineNumber>2147483647</purchaseOrderLineNumber>');
    await expectValid(xml);
  });
});

describe('OSN 2.0.0 answer: dimensions', () => {
  const dimensionOf = async (over: Partial<PackageV2View>) => {
    const rendered = await render([order([location({ packages: [pkg(over)] })])]);
    return { ...rendered, dimension: onlyPackage(rendered.json)['Dimension'] };
  };

  it('writes DimensionSize with a unit and at least one size, DimensionWeight with unit and weight', async () => {
    const some = await dimensionOf({ dimUOM: 'cm', width: 3, weightUOM: 'KG', weight: 0 });
    expect(some.dimension).toEqual({ DimensionSize: { dimUOM: 'cm', width: 3 }, DimensionWeight: { weightUOM: 'KG', weight: 0 } });
    expect(some.fields).toEqual([]);
    await expectValid(some.xml);
  });

  it('leaves out a half that is not complete, and Dimension when neither is', async () => {
    const sizeOnly = await dimensionOf({ dimUOM: 'mm', length: 1, weight: 5 });
    expect(sizeOnly.dimension).toEqual({ DimensionSize: { dimUOM: 'mm', length: 1 } });
    expect(sizeOnly.fields).toEqual(['DimensionWeight']);
    await expectValid(sizeOnly.xml);

    const weightOnly = await dimensionOf({ length: 1, height: 2, weightUOM: 'Ounces', weight: 5 });
    expect(weightOnly.dimension).toEqual({ DimensionWeight: { weightUOM: 'Ounces', weight: 5 } });
    expect(weightOnly.fields).toEqual(['DimensionSize']);
    await expectValid(weightOnly.xml);

    const neither = await dimensionOf({ dimUOM: 'Feet', weightUOM: 'Grams' });
    expect(neither.dimension).toBeUndefined();
    expect(neither.xml).not.toContain('Dimension');
    expect(neither.fields).toEqual(['DimensionSize', 'DimensionWeight']);
    await expectValid(neither.xml);

    const nothing = await dimensionOf({});
    expect(nothing.dimension).toBeUndefined();
    expect(nothing.fields).toEqual([]);
  });
});

describe('shipReferences: in the JSON v2 twin only (docs/design/osn-2.1.0.md §1)', () => {
  it('are an array in the JSON twin and absent from the SOAP 2.0.0 answer, which stays as it was', async () => {
    const labelled = await render([order([location({ packages: [pkg({ shipReferences: ['CARTON 1 OF 2', 'DEPT 42'] })] })])]);
    expect(onlyPackage(labelled.json)['shipReferences']).toEqual(['CARTON 1 OF 2', 'DEPT 42']);
    const plain = await render([order([location({ packages: [pkg()] })])]);
    expect(labelled.xml).toBe(plain.xml);
    expect(onlyPackage(plain.json)).not.toHaveProperty('shipReferences');
    await expectValid(labelled.xml);
  });

  it('are fitted as 2.1.0 allows: at most 4, each 1 to 64 characters, blank ones left out', async () => {
    const long = 'R'.repeat(70);
    const fitted = await render([order([location({ packages: [pkg({ shipReferences: ['  ', 'A', long, 'B', 'C', 'D'] })] })])]);
    expect(onlyPackage(fitted.json)['shipReferences']).toEqual(['A', 'R'.repeat(64), 'B', 'C']);
    // The cut and the fifth are counted (the twin's own fitting); the SOAP 2.0.0 answer fits none.
    expect(fitted.jsonFields).toEqual(['shipReferences', 'shipReferences']);
    expect(fitted.fields).toEqual([]);
  });
});

describe('OSN 2.0.0 answer: FreightDetails', () => {
  const freightOf = async (over: Partial<PackageV2View>) => {
    const rendered = await render([order([location({ packages: [pkg(over)] })])]);
    return { ...rendered, freight: onlyPackage(rendered.json)['FreightDetails'] };
  };

  it('takes carrierService before shipmentMethod as the service', async () => {
    expect((await freightOf({ carrier: 'UPS', carrierService: 'Next Day Air', shipmentMethod: 'Air' })).freight).toEqual({ carrier: 'UPS', service: 'Next Day Air' });
    const fallback = await freightOf({ carrier: 'FedEx', shipmentMethod: 'Ground' });
    expect(fallback.freight).toEqual({ carrier: 'FedEx', service: 'Ground' });
    await expectValid(fallback.xml);
  });

  it('is left out without a carrier or without a service: no invented service', async () => {
    const carrierOnly = await freightOf({ carrier: 'UPS' });
    expect(carrierOnly.freight).toBeUndefined();
    expect(carrierOnly.xml).not.toContain('FreightDetails');
    expect(carrierOnly.fields).toEqual(['FreightDetails']);
    const serviceOnly = await freightOf({ carrierService: 'Ground', carrier: ' ' });
    expect(serviceOnly.freight).toBeUndefined();
    expect(serviceOnly.fields).toEqual(['FreightDetails']);
    expect((await freightOf({})).fields).toEqual([]);
  });

  it('cuts carrier and service to 64', async () => {
    const long = await freightOf({ carrier: 'C'.repeat(100), shipmentMethod: 'S'.repeat(128) });
    expect(long.freight).toEqual({ carrier: 'C'.repeat(64), service: 'S'.repeat(64) });
    expect(long.fields).toEqual(['carrier', 'service']);
    await expectValid(long.xml);
  });
});

describe('OSN 2.0.0 answer: stored values the XSD has no word or number for', () => {
  it('leaves them out or writes the default, counting each, and the answer stays valid', async () => {
    // Values the view types (and the contract) exclude, as an older or damaged document could hold them.
    const odd = pkg({
      id: 1.5,
      length: Number.NaN,
      width: 2,
      dimUOM: 'in',
      weight: Number.POSITIVE_INFINITY,
      weightUOM: 'KG',
      preProductionProof: 'Maybe' as never,
      items: [{ supplierProductId: 'P-1', quantity: Number.NaN }, { supplierProductId: 'P-2', quantity: 1, uom: 'GR' as never }],
    });
    const { xml, json, fields } = await render([order([location({ shipmentDestinationType: 'Warehouse', packages: [odd] })])]);
    expect(onlyShipment(json)).not.toHaveProperty('shipmentDestinationType');
    expect(onlyPackage(json)).toEqual({
      trackingNumber: '1Z999',
      shipmentDate: '2025-03-04T05:06:07.000Z',
      ItemArray: [{ supplierProductId: 'P-2', Quantity: { value: 1, uom: 'EA' } }],
      preProductionProof: 'Unknown',
    });
    expect(fields.sort()).toEqual(['DimensionSize', 'DimensionWeight', 'Item', 'id', 'length', 'preProductionProof', 'shipmentDestinationType', 'uom', 'weight']);
    await expectValid(xml);
  });
});

describe('OSN 2.0.0 answer: empty, cap, locations without packages', () => {
  it('answers nothing found with the empty response element', async () => {
    const { xml, json, fields } = await render([]);
    expect(xml).toBe(`<GetOrderShipmentNotificationResponse xmlns="${OSN_V2_NS}" xmlns:shar="${OSN_V2_SHARED_NS}"/>`);
    expect(json).toEqual({});
    expect(fields).toEqual([]);
    await expectValid(xml);
  });

  it('adds the 200 Warning after the data when more purchase orders matched', async () => {
    const { xml, json } = await render([order([location()])], true);
    expect(xml).toMatch(
      /<\/OrderShipmentNotificationArray><ServiceMessageArray><shar:ServiceMessage><shar:code>200<\/shar:code><shar:description>Answer full: 5000 purchase orders; more may match<\/shar:description><shar:severity>Warning<\/shar:severity><\/shar:ServiceMessage><\/ServiceMessageArray><\/GetOrderShipmentNotificationResponse>$/,
    );
    expect(json['ServiceMessageArray']).toEqual([{ code: 200, description: 'Answer full: 5000 purchase orders; more may match', severity: 'Warning' }]);
    expect(json['OrderShipmentNotificationArray']).toHaveLength(1);
    await expectValid(xml);
    expect((await render([order([location()])], false)).xml).not.toContain('ServiceMessage');
  });

  it('sends the Warning alone when every capped order has nothing to show', async () => {
    const { xml, json } = await render([order([location({ packages: [] })])], true);
    expect(xml).toBe(`${OPEN}<ServiceMessageArray><shar:ServiceMessage><shar:code>200</shar:code><shar:description>Answer full: 5000 purchase orders; more may match</shar:description><shar:severity>Warning</shar:severity></shar:ServiceMessage></ServiceMessageArray></GetOrderShipmentNotificationResponse>`);
    expect(Object.keys(json)).toEqual(['ServiceMessageArray']);
    await expectValid(xml);
  });

  it('leaves out a location without packages, and a sales order or purchase order left with none', async () => {
    const { xml, json } = await render([
      {
        purchaseOrderNumber: 'PO-1',
        complete: false,
        salesOrders: [
          { salesOrderNumber: 'SO-1', complete: false, shipments: [location({ packages: [] }), location({ id: 2 })] },
          { salesOrderNumber: 'SO-2', complete: false, shipments: [location({ packages: [] })] },
        ],
      },
      order([location({ packages: [] })], 'PO-2'),
    ]);
    const answered = notifications(json);
    expect(answered).toHaveLength(1);
    expect(answered[0]?.SalesOrderArray.map((so) => so.salesOrderNumber)).toEqual(['SO-1']);
    expect(shipmentsOf(json)).toHaveLength(1);
    await expectValid(xml);
    expect((await render([order([location({ packages: [] })])])).xml).toBe(`<GetOrderShipmentNotificationResponse xmlns="${OSN_V2_NS}" xmlns:shar="${OSN_V2_SHARED_NS}"/>`);
  });

  it('escapes text and keeps characters XML cannot carry out of the answer', async () => {
    const { xml } = await render([order([location({ packages: [pkg({ shippingAccount: 'A<B>&\u0001C' })] })], 'PO <&>')]);
    expect(xml).toContain('<shar:purchaseOrderNumber>PO &lt;&amp;&gt;</shar:purchaseOrderNumber>');
    expect(xml).toContain('<shar:shippingAccount>A&lt;B&gt;&amp;\uFFFDC</shar:shippingAccount>');
    await expectValid(xml);
  });
});

// --- the XML read back, to compare with the JSON twin ---

const reader = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: false,
  // Every child of an XArray wrapper is a list item, however many there are.
  isArray: (_name, jpath) => /Array\.[^.]+$/.test(String(jpath)),
});

/** The answer's XML as the JSON twin would say it: XArray{X+} as a list, every value as its text. */
function xmlAsJson(xml: string): unknown {
  const unwrap = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(unwrap);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(value)) {
      out[name] = name.endsWith('Array') ? unwrap(Object.values(child as object)[0]) : unwrap(child);
    }
    return out;
  };
  const root = (reader.parse(xml) as Record<string, unknown>)['GetOrderShipmentNotificationResponse'];
  return root === '' ? {} : unwrap(root);
}

/** The JSON twin with each value written as XML writes it. */
function jsonAsText(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonAsText);
  if (typeof value === 'number') return formatDecimal(value);
  if (typeof value === 'boolean') return String(value);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonAsText(v)]));
  return value;
}

// --- property: whatever the views hold, every rendering validates ---

/** Strings as stored: mostly short, sometimes long, blank, padded, non-ASCII or astral. */
const text = (max: number) =>
  fc.oneof(
    fc.string({ minLength: 1, maxLength: max }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: max }),
    fc.constantFrom(' ', '\t\n', '  x  ', '😀'.repeat(40), 'é'.repeat(70)),
  );
const required = (max: number) => fc.oneof({ weight: 5, arbitrary: text(max) }, { weight: 1, arbitrary: fc.constant(' ') });
const number = fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.double({ min: 0, max: 1e22, noNaN: true }), fc.double({ min: 1e-12, max: 1e-3, noNaN: true }));

const addressArb: fc.Arbitrary<AddressV2View> = fc.record(
  {
    attentionTo: text(40),
    companyName: text(40),
    address1: required(64),
    address2: text(64),
    address3: text(64),
    address4: text(64),
    city: required(64),
    region: required(2),
    regionV2: text(5),
    postalCode: required(12),
    country: fc.oneof(fc.constantFrom('US', 'us', 'USA', 'UK', 'GBR', 'RS', 'SRB', 'CS', 'Germany', ' ', 'de '), fc.string({ maxLength: 4 })),
    email: text(130),
    phone: text(34),
  },
  { requiredKeys: ['address1', 'city', 'region', 'postalCode'] },
);

const itemArb: fc.Arbitrary<ItemV2View> = fc.record(
  {
    supplierProductId: text(70),
    supplierPartId: text(70),
    distributorProductId: text(70),
    distributorPartId: text(70),
    purchaseOrderLineNumber: fc.oneof(fc.nat().map(String), fc.constantFrom('2147483648', '99999999999', '0010', '-3', 'A1'), text(8)),
    quantity: fc.oneof(number, fc.double({ min: -100, max: 100, noNaN: true })),
    uom: fc.constantFrom(...quantityUoms),
  },
  { requiredKeys: [] },
);

const packageArb: fc.Arbitrary<PackageV2View> = fc.record(
  {
    id: fc.integer({ min: 1, max: 2 ** 40 }),
    trackingNumber: required(128),
    shipmentDate: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
    carrier: text(100),
    carrierService: text(70),
    shipmentMethod: text(128),
    shippingAccount: text(130),
    shipmentTerms: text(130),
    dimUOM: fc.constantFrom('Inches', 'Feet', 'mm', 'cm', 'Meters'),
    length: number,
    width: number,
    height: number,
    weightUOM: fc.constantFrom('Ounces', 'Pounds', 'Grams', 'KG'),
    weight: number,
    preProductionProof: fc.constantFrom(...preProductionProofs),
    items: fc.array(itemArb, { maxLength: 4 }),
  },
  { requiredKeys: ['id', 'trackingNumber', 'shipmentDate'] },
);

const locationArb: fc.Arbitrary<ShipmentV2View> = fc.record(
  {
    id: fc.integer({ min: 1, max: 99 }),
    complete: fc.boolean(),
    customerPickup: fc.boolean(),
    shipFromAddress: addressArb,
    shipToAddress: addressArb,
    shipmentDestinationType: fc.constantFrom('Commercial', 'Residential', 'None'),
    packages: fc.array(packageArb, { maxLength: 3 }),
  },
  { requiredKeys: ['id', 'complete', 'shipFromAddress', 'shipToAddress', 'packages'] },
);

const orderArb: fc.Arbitrary<ShipmentNotificationV2View> = fc.record({
  purchaseOrderNumber: fc.stringMatching(/^[A-Z0-9-]{1,20}$/),
  complete: fc.boolean(),
  salesOrders: fc.array(
    fc.record({ salesOrderNumber: fc.stringMatching(/^[A-Z0-9-]{1,20}$/), complete: fc.boolean(), shipments: fc.array(locationArb, { maxLength: 2 }) }),
    { maxLength: 2 },
  ),
});

describe('OSN 2.0.0 answer: generated views', () => {
  it('every rendering validates against the official XSDs; the JSON twin says the same and counts the same cuts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(orderArb, { maxLength: 3 }), fc.boolean(), async (orders, more) => {
        const { xml, json } = await render(orders, more);
        expect(await validateOsnV2(xml)).toEqual([]);
        expect(xmlAsJson(xml)).toEqual(jsonAsText(json));
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('written as its batches come (sent as read), SOAP and JSON are the bytes of the answer written whole (in one batch), whatever the batches hold, and count the same cuts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(orderArb, { maxLength: 3 }), { maxLength: 4 }), fc.boolean(), async (batches, more) => {
        const whole = await render(batches.flat(), more);
        const soap = await renderAsRead(shipmentNotificationV2PayloadAsRead, batches, more);
        expect(soap.text).toBe(whole.xml);
        expect(soap.fields).toEqual(whole.fields);
        const json = await renderAsRead(shipmentNotificationV2JsonAsRead, batches, more);
        expect(json.text).toBe(JSON.stringify(whole.json));
        expect(json.fields).toEqual(whole.fields);
      }),
      { numRuns: 100 },
    );
  });
});
